import Foundation
import PushMediaModel

// INTERIM (replaced by the paged PreviewBook before commit).
public final class PreviewBook {
    public static let defaultPageSize = 200
    let renderer: PreviewRenderer
    let directory: URL
    let profile: Profile
    let generatedAt: String
    var items: [Item] = []

    public init(
        renderer: PreviewRenderer, directory: URL, attachmentsPrefix: String, generator: Manifest.Generator, generatedAt: String,
        profile: Profile, pageSize: Int = PreviewBook.defaultPageSize
    ) {
        self.renderer = renderer
        self.directory = directory
        self.profile = profile
        self.generatedAt = generatedAt
    }

    public func add(_ item: Item) throws { items.append(item) }

    public func finish() throws -> [String] {
        var manifest = Manifest(profile: profile, items: items)
        manifest.generatedAt = generatedAt
        let html = renderer.render(manifest: manifest, pageDirectory: directory, manifestDirectory: directory)
        let target = directory.appendingPathComponent("preview.html")
        let temporary = directory.appendingPathComponent(".preview.html.tmp")
        try Data(html.utf8).write(to: temporary)
        _ = rename(temporary.path, target.path)
        return ["preview.html"]
    }
}
