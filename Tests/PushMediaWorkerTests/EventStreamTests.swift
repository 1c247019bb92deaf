import Foundation
import PushMediaModel
import PushMediaWorker
import Testing

/// `pushmedia process --json` as a campaign CLI reads it: NDJSON on standard output, human
/// progress on standard error, each failure said once.
@Suite("process --json events")
struct EventStreamTests {
    @Test("every stdout line is an event matching docs/events.schema.json: one per file, the summary last; stderr names each broken file once")
    func ndjsonOnFixtures() async throws {
        let folder = try Support.temporaryFolder()
        let out = folder.appendingPathComponent("out")
        let run = try await Support.run(
            Support.pushmedia, ["process", Support.fixtures.path, "--out", out.path, "--jobs", "2", "--json"], in: folder)
        #expect(run.status == 1, "the broken fixtures fail: \(run.error)")

        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(run.output.hasSuffix("\n"))
        let events = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let stream = folder.appendingPathComponent("events.ndjson")
        try run.output.write(to: stream, atomically: true, encoding: .utf8)
        let schema = try await SchemaValidator.validate(stream, schema: "docs/events.schema.json", lines: true)
        #expect(schema.valid, "\(schema.output)")

        let sources = try Support.fixtureSources()
        let items = events.dropLast()
        #expect(items.allSatisfy { $0["event"] as? String == "item" })
        #expect(items.compactMap { $0["source"] as? String }.sorted() == sources)
        #expect(items.compactMap { $0["done"] as? Int } == Array(1...sources.count))
        let summary = try #require(events.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["total"] as? Int == sources.count)
        #expect(summary["failed"] as? Int == Support.brokenFixtures.count)
        let manifest = try Manifest.decode(from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        #expect(summary["outputBytes"] as? Int == manifest.summary.outputBytes)
        for event in items {
            let item = try #require(manifest.item(source: event["source"] as? String ?? ""))
            #expect(event["status"] as? String == item.status.rawValue)
            #expect(event["code"] as? String == item.error?.code.rawValue)
            #expect(event["bytes"] as? Int == item.attachments.reduce(0) { $0 + $1.bytes })
        }

        // Standard error: one progress line per file, and each broken file named on that line only
        // (no log line repeats an input's failure).
        for broken in Support.brokenFixtures {
            let mentions = run.error.split(separator: "\n").filter { $0.contains(broken) }
            #expect(mentions.count == 1, "\(broken) on stderr \(mentions.count) times: \(mentions)")
        }
        #expect(!run.error.contains("error pushmedia"), "\(run.error)")
        #expect(run.error.split(separator: "\n").filter { $0.hasPrefix("[") }.count == sources.count)
    }
}

@Suite("Campaign throughput")
struct CampaignThroughputTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    @Test("the rate is the spacing of recent finishes; time left is what remains at that rate")
    func rate() {
        // 11 finishes over the last 5 minutes: 10 intervals in 300 s = 2 per minute.
        let finished = (0...10).map { now.addingTimeInterval(-300 + Double($0) * 30) }
        let estimate = CampaignThroughput.estimate(finishedAt: finished, remaining: 6, now: now)
        #expect(estimate.perMinute == 2)
        #expect(estimate.secondsLeft == 180)
        #expect(estimate.description == "2.0 jobs/min, about 3 min left")
    }

    @Test("finishes older than the window do not count; a campaign that just began is not diluted")
    func window() {
        let old = (0..<50).map { now.addingTimeInterval(-7200 - Double($0)) }
        let recent = (0..<5).map { now.addingTimeInterval(-60 + Double($0) * 15) }
        let estimate = CampaignThroughput.estimate(finishedAt: old + recent, remaining: 10, now: now)
        #expect(estimate.perMinute == 4)
        #expect(estimate.secondsLeft == 150)
    }

    @Test("nothing left is done; a stalled or new campaign has no estimate")
    func edges() {
        #expect(CampaignThroughput.estimate(finishedAt: [], remaining: 0, now: now).secondsLeft == 0)
        let stalled = CampaignThroughput.estimate(finishedAt: [now.addingTimeInterval(-3600)], remaining: 4, now: now)
        #expect(stalled.perMinute == nil && stalled.secondsLeft == nil)
        let one = CampaignThroughput.estimate(finishedAt: [now.addingTimeInterval(-5)], remaining: 4, now: now)
        #expect(one.perMinute == nil && one.secondsLeft == nil)
        #expect(stalled.description == "no recent finishes to estimate the time left")
    }
}

@Suite("Help texts")
struct HelpTextTests {
    static let commands = [
        [], ["process"], ["enqueue"], ["worker"], ["status"], ["manifest"], ["retry"], ["probe"], ["payload"], ["preview"],
        ["healthcheck"], ["version"],
    ]

    @Test("every --help reads cleanly at 80 columns: no longer line, no stray run of spaces in prose", arguments: commands)
    func help(command: [String]) async throws {
        let folder = try Support.temporaryFolder()
        let run = try await Support.run(Support.pushmedia, command + ["--help"], in: folder)
        #expect(run.status == 0)
        let text = run.output + run.error
        #expect(text.contains("USAGE:"))
        for line in text.split(separator: "\n") {
            #expect(line.count <= 80, "\(command): \(line.count) columns: \(line)")
        }
        // Prose (OVERVIEW and the discussion) never has two spaces inside a line; the OPTIONS
        // table's alignment is not prose.
        let prose = text.components(separatedBy: "USAGE:")[0]
        for line in prose.split(separator: "\n") {
            let words = line.drop { $0 == " " }
            #expect(!words.contains("  "), "\(command): \(line)")
        }
    }
}
