// A complete Notification Service Extension that attaches PushMedia's media, whichever sender
// delivered it (PushMedia's `pm`, Braze, Adobe, Airship, OneSignal or FCM payloads).
//
// Not built on Linux. Add PushAttachmentPlanner to the extension target, either as the
// package product or by copying Sources/PushAttachmentPlanner/*.swift into the target.
import Foundation
@preconcurrency import UserNotifications

#if canImport(PushAttachmentPlanner)
import PushAttachmentPlanner
#endif

final class NotificationService: UNNotificationServiceExtension {
    private var finish: Finish?
    private var session: URLSession?

    override func didReceive(
        _ request: UNNotificationRequest,
        withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void
    ) {
        let original = request.content
        let finish = Finish(contentHandler, original: original)
        self.finish = finish

        let plan = AttachmentPlanner().plan(userInfo: original.userInfo)
        for problem in plan.problems { NSLog("PushMedia: %@", problem.description) }
        guard !plan.download.steps.isEmpty else { return finish(original) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = plan.download.perDownloadTimeout
        configuration.timeoutIntervalForResource = plan.download.perDownloadTimeout
        let session = URLSession(configuration: configuration)
        self.session = session

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = Files()
        let group = DispatchGroup()

        for step in plan.download.steps {
            group.enter()
            session.downloadTask(with: step.url) { location, response, error in
                defer { group.leave() }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 200
                guard error == nil, (200..<300).contains(status), let location else { return }
                let size = (try? location.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
                guard step.accepts(byteCount: size) else { return }  // empty, or over Apple's limit
                // iOS needs the right extension; the temporary file is gone after this closure.
                let destination = folder.appendingPathComponent(step.fileName)
                if (try? FileManager.default.moveItem(at: location, to: destination)) != nil {
                    files.set(step.index, destination)
                }
            }.resume()
        }

        // All downloads run at once; stop waiting at the plan's deadline, well before iOS's ~30 s.
        DispatchQueue.global(qos: .userInitiated).async {
            _ = group.wait(timeout: .now() + plan.download.overallDeadline)
            session.invalidateAndCancel()
            let attachments = plan.notificationAttachments(files: files.snapshot())
            guard !attachments.isEmpty, let content = original.mutableCopy() as? UNMutableNotificationContent else {
                return finish(original)  // the fallback: the notification as it came
            }
            content.attachments = attachments
            finish(content)
        }
    }

    override func serviceExtensionTimeWillExpire() {
        session?.invalidateAndCancel()
        finish?.expire()
    }
}

/// Calls the content handler exactly once, whichever comes first: the downloads or expiry.
private final class Finish: @unchecked Sendable {
    private let lock = NSLock()
    private var handler: ((UNNotificationContent) -> Void)?
    private let original: UNNotificationContent

    init(_ handler: @escaping (UNNotificationContent) -> Void, original: UNNotificationContent) {
        self.handler = handler
        self.original = original
    }

    func callAsFunction(_ content: UNNotificationContent) {
        lock.lock()
        let handler = self.handler
        self.handler = nil
        lock.unlock()
        handler?(content)
    }

    /// iOS is about to stop the extension: deliver the notification as it came.
    func expire() { self(original) }
}

/// Downloaded files by attachment index, written from URLSession's queue.
private final class Files: @unchecked Sendable {
    private let lock = NSLock()
    private var files: [Int: URL] = [:]

    func set(_ index: Int, _ url: URL) {
        lock.lock()
        files[index] = url
        lock.unlock()
    }

    func snapshot() -> [Int: URL] {
        lock.lock()
        defer { lock.unlock() }
        return files
    }
}
