// The preview page's markup: the page template and its fragments, with `{{name}}` placeholders
// filled by `Template.fill`, which escapes every value for its context. No markup is built
// anywhere else (the paged preview's own templates are in PreviewTemplate+Book.swift). Styles
// are in PreviewStyle.swift.

/// The templates of the preview page.
enum PreviewTemplate {
    /// The start of every page, up to `<body>`. No scripts: the Content-Security-Policy forbids
    /// them, so even a mistake in escaping could not run code. Images and media load from relative URLs (and `file:`, so the
    /// page works when opened straight from disk).
    static let document = Template(
        #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src * data: file:; media-src * data: file:; style-src 'unsafe-inline'">
        <meta name="generator" content="{{generator}}">
        <title>{{title}}</title>
        <style>
        {{style}}
        </style>
        </head>
        <body>
        """#)

    /// The preview page (the single page, and the summary of a paged preview): the document's
    /// head, then the summary header, failures, items and footer.
    static let page = Template(
        #"""
        {{head}}
        <header class="summary" id="summary">
          <div class="summary-head">
            <div>
              <h1>Push notification preview</h1>
              <p class="meta">Manifest of {{generatedAt}} · profile <b>{{profile}}</b> · {{generator}}</p>
            </div>
            <p class="legend"><span class="dot ok"></span>within budget <span class="dot warn"></span>over budget <span class="dot over"></span>over the iOS limit</p>
          </div>
          <dl class="stats">
            <div class="stat"><dt>Items</dt><dd>{{total}}</dd></div>
            <div class="stat good"><dt>OK</dt><dd>{{ok}}</dd></div>
            <div class="stat {{failedClass}}"><dt>Failed</dt><dd>{{failed}}</dd></div>
            <div class="stat {{warnedClass}}"><dt>With warnings</dt><dd>{{warned}}</dd></div>
            <div class="stat"><dt>To host</dt><dd data-bytes="{{bytesToHostRaw}}">{{bytesToHost}}</dd><span class="sub">{{filesToHost}}</span></div>
            <div class="stat"><dt>Largest attachment</dt><dd>{{largestBytes}}</dd><span class="sub"><bdi>{{largestDetail}}</bdi></span></div>
            <div class="stat {{androidOverClass}}"><dt>Android over budget</dt><dd data-android-over="{{androidOver}}">{{androidOver}}</dd><span class="sub">over its budget, 1 MiB or FCM's 5 s</span></div>
          </dl>
          {{estimates}}
        </header>
        {{failures}}
        <main class="items" id="items">
        {{items}}
        </main>
        {{footer}}
        </body>
        </html>
        """#)

    /// The footer of every page: how the estimates and bars are computed.
    static let footer = Template(
        #"""
        <footer>
          Estimated download time = bytes × 8 ÷ the profile's delivery link ({{link}}; no latency or
          overhead), summed over an item's attachments (the extension downloads them all before the
          notification shows), against the profile's delivery target (iOS gives the extension 30 s).
          Bars: bytes against the byte budget (when set) and against Apple's hard limit for the type
          (images 10 MB, audio 5 MB, movies 50 MB).
        </footer>
        """#)

    /// The download-time table in the summary header.
    static let estimates = Template(
        #"""
        <section class="estimates" aria-label="Download time">
          <h2>{{heading}} <span class="hint">{{link}}, against the profile's {{target}} target (the extension gets {{limit}})</span></h2>
          <table>
            <tbody>
        {{rows}}
            </tbody>
          </table>
        </section>
        """#)

    /// One row of the download-time table.
    static let estimateRow = Template(
        #"""
              <tr class="estimate {{state}}" data-seconds="{{secondsRaw}}"><th scope="row"><a href="{{href}}"><bdi>{{source}}</bdi></a>{{encoding}}</th><td class="num">{{bytes}}</td><td class="barcell">{{bar}}</td><td class="num">{{seconds}}</td></tr>
        """#)

    /// The failures section, above the items.
    static let failures = Template(
        #"""
        <section class="failures" id="failures">
          <h2>Failed <span class="count">{{count}}</span></h2>
          <table>
            <thead><tr><th>Source</th><th>Kind</th><th>Code</th><th>Message</th></tr></thead>
            <tbody>
        {{rows}}
            </tbody>
          </table>{{more}}
        </section>
        """#)

    /// One failed item.
    static let failureRow = Template(
        #"""
              <tr class="failure" id="{{anchor}}" data-source="{{sourceAttr}}"><th scope="row" class="source"><bdi>{{source}}</bdi>{{encoding}}</th><td>{{kind}}</td><td><code class="code">{{code}}</code></td><td class="message">{{message}}</td></tr>
        """#)

    /// One item that was processed: collapsed and expanded notification, sizes, warnings.
    static let item = Template(
        #"""
        <article class="item" id="{{anchor}}" data-source="{{sourceAttr}}">
          <header class="item-head">
            <h2 class="source"><bdi>{{source}}</bdi>{{encoding}}</h2>
            <span class="badge">{{kind}}</span>
            <span class="probe">{{probe}}</span>
          </header>
          <div class="item-body">
            <section class="stage">
              <h3>Collapsed</h3>
              <div class="wallpaper">
        {{collapsed}}
              </div>
        {{compare}}
            </section>
            <section class="stage">
              <h3>Expanded</h3>
              <div class="wallpaper">
        {{expanded}}
              </div>
            </section>
            <section class="stage" data-platform="android">
              <h3>Android</h3>
              <div class="wallpaper android">
        {{android}}
              </div>
            </section>
            <section class="facts">
              <h3>Attachments</h3>
              <div class="sizes">
        {{sizes}}
              </div>
        {{download}}
        {{warnings}}
            </section>
            <section class="stage" data-platform="web">
              <h3>Web</h3>
              <div class="wallpaper web">
        {{web}}
              </div>
            </section>
          </div>
        </article>
        """#)

    /// Android's notification for an item with an Android image: collapsed, the large icon (the
    /// centre square of the one bitmap, as Firebase's SDK shows it); expanded, the big picture,
    /// centre-cropped; then the download against FCM's 5 s.
    static let androidCards = Template(
        #"""
                <figure class="variant" data-android="collapsed">
                  <div class="notification android">
                    <div class="collapsed">
        {{text}}
                      <div class="large-icon"><img src="{{src}}" alt="android large icon {{file}}"></div>
                    </div>
                  </div>
                  <figcaption>{{collapsedCaption}}</figcaption>
                </figure>
                <figure class="variant" data-android="expanded">
                  <div class="notification android">
        {{text}}
                    <div class="big-picture"><img src="{{src}}" alt="android big picture {{file}}"></div>
                  </div>
                  <figcaption>{{expandedCaption}}</figcaption>
                </figure>
                <div class="download {{state}}" data-android-seconds="{{secondsRaw}}"><h4>Android download at {{link}}</h4>{{bar}}</div>
        """#)

    /// A web push notification as Chrome on Windows and Android shows it: the icon beside the
    /// title, body and site, the image below.
    static let webCard = Template(
        #"""
                <figure class="variant" data-web="chrome">
                  <div class="notification web">
                    <div class="web-head">
        {{icon}}
                      <div class="text">
                        <div class="title">{{title}}</div>
                        <div class="body">{{body}}</div>
                        <div class="site">PushMedia · now</div>
                      </div>
                    </div>
        {{image}}
                  </div>
                  <figcaption>{{caption}}</figcaption>
                </figure>
        """#)

    /// The web notification's icon (the square thumbnail).
    static let webIcon = Template(
        #"""
                      <div class="web-icon"><img src="{{src}}" alt="web icon {{file}}"></div>
        """#)

    /// The web notification's image (the Android image, 2:1).
    static let webImage = Template(
        #"""
                    <div class="web-image"><img src="{{src}}" alt="web image {{file}}"></div>
        """#)

    /// The app name, title and body of an Android notification.
    static let androidText = Template(
        #"""
                    <div class="text">
                      <div class="app-row"><span class="app">PushMedia</span><span class="time">· now</span></div>
                      <div class="title">{{title}}</div>
                      <div class="body">{{body}}</div>
                    </div>
        """#)

    /// An item without an Android image: Android shows the text alone.
    static let androidNone = Template(
        #"""
                <figure class="variant" data-android="none">
                  <div class="notification android">
        {{text}}
                  </div>
                  <figcaption>{{caption}}</figcaption>
                </figure>
        """#)

    /// A collapsed notification (banner): app icon, title and body, the square thumbnail on the right.
    static let banner = Template(
        #"""
                <figure class="variant">
                  <div class="notification banner">
                    <div class="app-icon" aria-hidden="true"></div>
                    <div class="text">
                      <div class="app-row"><span class="app">PUSHMEDIA</span><span class="time">now</span></div>
                      <div class="title">{{title}}</div>
                      <div class="body">{{body}}</div>
                    </div>
        {{thumb}}
                  </div>
                  <figcaption>{{caption}}</figcaption>
                </figure>
        """#)

    /// A square thumbnail from an image file: the thumbnail file itself, or an image without a
    /// clipping rect, which iOS fills into the square from the centre.
    static let thumbFile = Template(
        #"""
                    <div class="thumb"><img class="fill" src="{{src}}" alt="{{alt}}"></div>
        """#)

    /// The thumbnail file with the faces found in the source drawn on it as boxes.
    static let thumbFaces = Template(
        #"""
                    <div class="thumb faces" data-faces="{{count}}"><img class="fill" src="{{src}}" alt="{{alt}}">{{boxes}}</div>
        """#)

    /// One face on a thumbnail: percentages of the thumbnail, clipped to it.
    static let faceBox = Template(
        #"""
        <span class="face-box" data-face="{{x}} {{y}} {{w}} {{h}}" style="left:{{leftPercent}}%;top:{{topPercent}}%;width:{{widthPercent}}%;height:{{heightPercent}}%"></span>
        """#)

    /// The thumbnail cut from the expanded image by its clipping rect, in CSS.
    static let thumbClip = Template(
        #"""
                    <div class="thumb clip" data-clip="{{x}} {{y}} {{w}} {{h}}"><img src="{{src}}" alt="{{alt}}" style="width:{{widthPercent}}%;height:{{heightPercent}}%;left:{{leftPercent}}%;top:{{topPercent}}%"></div>
        """#)

    /// No image for the thumbnail (audio, or a movie without a still).
    static let thumbPlaceholder = Template(
        #"""
                    <div class="thumb placeholder" aria-label="{{label}}">{{glyph}}</div>
        """#)

    /// The two square thumbnails side by side, large, to check they show the same subject.
    static let compare = Template(
        #"""
              <div class="compare">
                <figure>{{left}}<figcaption>{{leftCaption}}</figcaption></figure>
                <figure>{{right}}<figcaption>{{rightCaption}}</figcaption></figure>
              </div>
        """#)

    /// The expanded notification: the media on top, then title and body.
    static let longLook = Template(
        #"""
                <figure class="variant">
                  <div class="notification longlook">
        {{media}}
                    <div class="text">
                      <div class="app-row"><span class="app-icon small" aria-hidden="true"></span><span class="app">PUSHMEDIA</span><span class="time">now</span></div>
                      <div class="title">{{title}}</div>
                      <div class="body">{{body}}</div>
                    </div>
                  </div>
                  <figcaption>{{caption}}</figcaption>
                </figure>
        """#)

    /// An expanded image (still or animated GIF: `<img>` animates GIFs by itself).
    static let mediaImage = Template(
        #"""
                    <img class="media" src="{{src}}" alt="{{alt}}">
        """#)

    /// A movie, with the chosen still as its poster.
    static let mediaVideo = Template(
        #"""
                    <video class="media" controls preload="none" playsinline src="{{src}}"{{poster}}></video>
        """#)

    /// The `poster` attribute of a movie.
    static let posterAttribute = Template(#" poster="{{src}}""#)

    /// An audio file, under its image when it has one.
    static let mediaAudio = Template(
        #"""
                    <div class="audio">{{image}}<audio controls preload="none" src="{{src}}"></audio></div>
        """#)

    /// One attachment in the sizes list: role and bytes, file link, details, bars.
    static let sizeRow = Template(
        #"""
                <div class="attachment" data-role="{{role}}" data-bytes="{{bytesRaw}}">
                  <div class="att-head"><span class="role">{{role}}</span><span class="num">{{bytes}}</span></div>
                  <a href="{{href}}">{{file}}</a>
                  <div class="sub">{{detail}}</div>
        {{bars}}
                </div>
        """#)

    /// A horizontal bar: `percent` of the track filled, coloured by `state` (ok, warn, over).
    static let bar = Template(
        #"""
        <div class="bar {{state}}" data-percent="{{percent}}"><div class="track"><div class="fillbar" style="width:{{percent}}%"></div></div><span class="label">{{label}}</span></div>
        """#)

    /// The item's download estimate.
    static let download = Template(
        #"""
              <div class="download {{state}}" data-seconds="{{secondsRaw}}"><h4>Download at {{link}}</h4>{{bar}}</div>
        """#)

    /// The item's warnings.
    static let warnings = Template(
        #"""
              <ul class="warnings">
        {{items}}
              </ul>
        """#)

    /// One warning.
    static let warning = Template(
        #"""
                <li class="warning">{{text}}</li>
        """#)

    /// An empty-state line inside a section.
    /// After a source whose name is not valid UTF-8 (shown percent-escaped), saying so.
    static let encodedSource = Template(
        #"""
         <abbr class="encoded" title="The file's name is not valid UTF-8: each byte that is not is shown as %XX, and % itself as %25 (sourceEncoding: percent)">not UTF-8</abbr>
        """#)

    static let note = Template(
        #"""
              <p class="note">{{text}}</p>
        """#)

    /// Every template, for the tests.
    static let all: [String: Template] = single.merging(book) { a, _ in a }

    /// The templates of the single page.
    static let single: [String: Template] = [
        "document": document, "page": page, "footer": footer, "estimates": estimates, "estimateRow": estimateRow, "failures": failures,
        "failureRow": failureRow, "item": item, "banner": banner, "thumbFile": thumbFile,
        "thumbFaces": thumbFaces, "faceBox": faceBox,
        "thumbClip": thumbClip, "thumbPlaceholder": thumbPlaceholder,
        "compare": compare, "longLook": longLook, "mediaImage": mediaImage, "mediaVideo": mediaVideo,
        "posterAttribute": posterAttribute, "mediaAudio": mediaAudio, "sizeRow": sizeRow, "bar": bar,
        "download": download, "warnings": warnings, "warning": warning, "note": note, "encodedSource": encodedSource,
    ]
}
