import Foundation
import PushMedia
import PushMediaModel
import PushMediaQueue
import PushMediaWorker
import Testing

/// A queued job whose stored profile holds a value that is not usable fails that job,
/// once and for good, and never crashes the worker that claims it.
@Suite("Jobs with a stored profile that is not usable")
struct InvalidProfileJobTests {
    @Test("ProfileKey.decode checks a stored profile like a --profile file: a bad value, a deep or a non-JSON key throws")
    func decode() throws {
        for key in [
            #"{"jpeg":{"quality":0}}"#,
            #"{"audio":{"bitRate":0}}"#,
            #"{"delivery":{"seconds":1e308}}"#,
            #"{"delivery":{"linkBitsPerSecond":-9223372036854775808}}"#,
            #"{"limits":{"timeoutSeconds":-0.0}}"#,
            String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000),
            "jpeg: {quality: 80}",
        ] {
            let error = #expect(throws: ProfileLoader.Failure.self) { try ProfileKey.decode(key) }
            #expect(error?.description.hasPrefix("the job's profile: ") == true)
        }
        let quality = #expect(throws: ProfileLoader.Failure.self) { try ProfileKey.decode(#"{"jpeg":{"quality":0}}"#) }
        #expect(quality?.description == "the job's profile: jpeg.quality must be in 1…100, got 0")
        // What enqueue stores still decodes.
        var profile = Profile()
        profile.jpeg.quality = 70
        #expect(try ProfileKey.decode(ProfileKey.encode(profile)) == profile)
        #expect(try ProfileKey.decode(ProfileKey.encode(.default)) == .default)
    }

    @Test("a worker claiming a job whose stored profile has jpeg.quality 0 fails it invalid_profile at attempt 1, and goes on")
    func workerFailsTheJob() async throws {
        let folder = try Support.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Support.fixtures.appendingPathComponent("graphics/logo-alpha.png"), to: input.appendingPathComponent("logo.png"))
        let url = "sqlite:\(folder.appendingPathComponent("queue.sqlite").path)"
        let queue = try await JobQueueFactory.open(url: url)
        // Canonical JSON as an older version or a hand-written row could hold it.
        let bad = #"{"jpeg":{"quality":0}}"#
        _ = try await queue.enqueue([
            NewJob(campaign: "c", source: "logo.png", profile: bad, maxAttempts: 3),
            NewJob(campaign: "c", source: "logo.png", profile: try ProfileKey.encode(.default), maxAttempts: 3),
        ])
        await queue.close()

        let run = try await Support.run(
            Support.pushmedia,
            ["worker", "--queue", url, "--out", folder.appendingPathComponent("out").path, "--root", input.path, "--concurrency", "1", "--drain"],
            in: folder, timeout: 120)
        #expect(run.status == 0, "\(run.status): \(run.error)")

        let jobs = try await Support.jobs(url, campaign: "c")
        let failed = try #require(jobs.first { $0.profile == bad })
        #expect(failed.state == .failed, "permanent, not retrying or dead: \(failed.state)")
        #expect(failed.attempts == 1)
        #expect(failed.lastError?.code == ErrorCode.invalidProfile.rawValue)
        #expect(failed.lastError?.message.contains("jpeg.quality must be in 1…100, got 0") == true, "\(String(describing: failed.lastError))")
        let done = try #require(jobs.first { $0.profile != bad })
        #expect(done.state == .succeeded, "the next job is processed: \(done.state) \(String(describing: done.lastError))")

        // The manifest of those jobs: the bad profile is not used (the first job's profile, else
        // the default), and the item says why it failed.
        let manifest = ManifestAssembler.manifest(from: [failed, done], baseURL: nil)
        #expect(manifest.profile == .default)
        #expect(manifest.items.first { $0.status == .failed }?.error?.code == .invalidProfile)
    }

    @Test("invalid_profile is permanent: not among the codes a retry may fix")
    func permanent() {
        #expect(!MediaJobError.transientCodes.contains(.invalidProfile))
    }
}
