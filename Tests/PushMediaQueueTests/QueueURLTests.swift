import PushMediaQueue
import Testing

@Suite("QueueURL parsing")
struct QueueURLTests {
    @Test(
        "sqlite URLs",
        arguments: [
            ("sqlite:queue.sqlite", "queue.sqlite"),
            ("sqlite:.pushmedia/queue.sqlite", ".pushmedia/queue.sqlite"),
            ("sqlite:/var/lib/pm/q.db", "/var/lib/pm/q.db"),
            ("sqlite:///var/lib/pm/q.db", "/var/lib/pm/q.db"),
            ("SQLITE:///tmp/a%20b.db", "/tmp/a b.db"),
            ("sqlite://localhost/tmp/q.db", "/tmp/q.db"),
        ])
    func sqlite(_ input: String, _ path: String) throws {
        #expect(try QueueURL(parsing: input) == .sqlite(path: path))
    }

    @Test("postgres URLs with defaults")
    func postgresDefaults() throws {
        guard case .postgres(let configuration) = try QueueURL(parsing: "postgres://pm:secret@db.internal/media") else {
            Issue.record("not postgres")
            return
        }
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 5432)
        #expect(configuration.username == "pm")
        #expect(configuration.password == "secret")
        #expect(configuration.database == "media")
        #expect(configuration.schema == nil)
        #expect(configuration.prefix == "pushmedia_")
        #expect(configuration.sslMode == .prefer)
        #expect(configuration.description == "postgres://pm:***@db.internal:5432/media")
    }

    @Test("postgresql URLs with port, schema, prefix and sslmode")
    func postgresOptions() throws {
        let url = try QueueURL(parsing: "postgresql://pm@127.0.0.1:6543/media?schema=queue&prefix=pm_&sslmode=disable")
        guard case .postgres(let configuration) = url else {
            Issue.record("not postgres")
            return
        }
        #expect(configuration.port == 6543)
        #expect(configuration.password == nil)
        #expect(configuration.schema == "queue")
        #expect(configuration.prefix == "pm_")
        #expect(configuration.sslMode == .disable)
        #expect(url.description == "postgres://pm@127.0.0.1:6543/media?schema=queue&prefix=pm_&sslmode=disable")
    }

    @Test(
        "bad URLs are refused with a clear error",
        arguments: [
            ("mysql://a@b/c", "unsupported scheme 'mysql'"),
            ("queue.sqlite", "unsupported scheme"),
            ("sqlite:", "missing file path"),
            ("sqlite:///", "missing file path"),
            ("sqlite://server/q.db", "take no host"),
            ("postgres:///media", "missing host"),
            ("postgres://db/media", "missing user"),
            ("postgres://pm@db", "missing database"),
            ("postgres://pm@db/media?schema=Bad-Name", "schema 'Bad-Name'"),
            ("postgres://pm@db/media?prefix=1x", "prefix '1x'"),
            ("postgres://pm@db/media?colour=red", "unknown parameter 'colour'"),
            ("postgres://pm@db/media?sslmode=maybe", "sslmode 'maybe'"),
        ])
    func invalid(_ input: String, _ message: String) {
        do {
            let url = try QueueURL(parsing: input)
            Issue.record("\(input) parsed as \(url)")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("errors hide the password")
    func redaction() {
        do {
            _ = try QueueURL(parsing: "postgres://pm:hunter2@db/media?colour=red")
            Issue.record("must fail")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("pm:***@db"))
        }
    }
}
