import Foundation

/// A minimal HTTP GET to 127.0.0.1 over a POSIX socket (a health check must not need more than
/// the binary itself), returning the status code.
enum HealthProbe {
    static func get(port: Int, path: String, timeoutSeconds: Int = 3) -> Result<Int, HealthProbeError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(HealthProbeError("socket: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            return .failure(HealthProbeError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))"))
        }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        guard request.withCString({ send(fd, $0, strlen($0), 0) }) > 0 else {
            return .failure(HealthProbeError("cannot send the request: \(String(cString: strerror(errno)))"))
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return .failure(HealthProbeError("no answer from 127.0.0.1:\(port)")) }
        let line = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            return .failure(HealthProbeError("not an HTTP answer: \(line)"))
        }
        return .success(status)
    }
}

struct HealthProbeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
