// The markup of a paged preview (PreviewBook): the pages in `preview/` and the sections of the
// summary page. The summary itself is `PreviewTemplate.page`, and the cards and rows are the
// single page's; only what a single page does not have is here.

extension PreviewTemplate {
    /// The top of a page in `preview/`, up to the number of pages, which follows it as a
    /// fixed-width field (`PageSeries.countWidth` characters) filled in once the book is finished.
    /// It must depend on nothing but the series and the page number: the book computes its
    /// length again to find the field.
    static let bookPageHead = Template(
        #"""
        {{head}}
        <nav class="pager" aria-label="Pages"><a class="up" href="../preview.html">Summary</a>{{previous}}<span class="where">{{series}} · page {{page}} of <span class="pages">
        """#)

    /// The rest of a page in `preview/`, after the number of pages.
    static let bookPageTail = Template(
        #"""
        </span></span>{{next}}</nav>
        <header class="summary page-head">
          <h1>{{heading}}</h1>
          <p class="meta">{{range}} · manifest of {{generatedAt}} · profile <b>{{profile}}</b> · {{generator}}</p>
        </header>
        {{body}}
        <nav class="pager bottom" aria-label="Pages"><a class="up" href="../preview.html">Summary</a>{{previous}}{{next}}</nav>
        {{footer}}
        </body>
        </html>
        """#)

    /// A link to the previous or next page (`rel` is `prev` or `next`).
    static let pagerLink = Template(
        #"""
        <a class="{{rel}}" rel="{{rel}}" href="{{href}}">{{label}}</a>
        """#)

    /// The cards of an items page.
    static let itemsBody = Template(
        #"""
        <main class="items" id="items">
        {{cards}}
        </main>
        """#)

    /// A card too large for a page (over `PreviewBook.maxFragmentBytes` even with its texts
    /// shortened): the item's anchor and name, and why it is not drawn.
    static let oversizeItem = Template(
        #"""
        <article class="item oversize" id="{{anchor}}" data-source="{{sourceAttr}}">
          <header class="item-head"><h2 class="source"><bdi>{{source}}</bdi>{{encoding}}</h2></header>
          <p class="note">{{text}}</p>
        </article>
        """#)

    /// A failed item on the summary: the row of the failures table, linked to its page.
    static let failureLinkRow = Template(
        #"""
              <tr class="failure"><th scope="row" class="source"><a href="{{href}}"><bdi>{{source}}</bdi></a>{{encoding}}</th><td>{{kind}}</td><td><code class="code">{{code}}</code></td><td class="message">{{message}}</td></tr>
        """#)

    /// The items with warnings (on the summary: the first ones, then `more`; on a page: its rows).
    static let warnedSection = Template(
        #"""
        <section class="panel warned" id="warned">
          <h2>With warnings <span class="count caution">{{count}}</span></h2>
          <table>
            <thead><tr><th>Source</th><th>Warnings</th></tr></thead>
            <tbody>
        {{rows}}
            </tbody>
          </table>{{more}}
        </section>
        """#)

    /// One item with warnings, linked to its card (or failure row).
    static let warnedRow = Template(
        #"""
              <tr class="warned"><th scope="row" class="source"><a href="{{href}}"><bdi>{{source}}</bdi></a>{{encoding}}</th><td>{{warnings}}</td></tr>
        """#)

    /// The attachments largest against their budget (or Apple's limit when no budget is set).
    static let outliers = Template(
        #"""
        <section class="panel outliers" id="outliers">
          <h2>Largest against their budget <span class="hint">{{hint}}</span></h2>
          <table>
            <tbody>
        {{rows}}
            </tbody>
          </table>
        </section>
        """#)

    /// One attachment in the outliers table: its item, how far over, and its size row.
    static let outlierRow = Template(
        #"""
              <tr class="outlier {{state}}" data-ratio="{{ratio}}"><th scope="row" class="source"><a href="{{href}}"><bdi>{{source}}</bdi></a>{{encoding}}</th><td class="num">{{ratioText}}</td><td>{{size}}</td></tr>
        """#)

    /// A plain panel around a section of the summary.
    static let panel = Template(
        #"""
        <div class="panel">
        {{content}}
        </div>
        """#)

    /// A sample of cards on the summary.
    static let sample = Template(
        #"""
        <section class="sample" id="sample">
          <h2 class="section-title">{{heading}} <span class="hint">{{hint}}</span></h2>
        {{cards}}
        </section>
        """#)

    /// One card of the sample, with a link to where it is in the pages.
    static let sampleCard = Template(
        #"""
        <div class="sample-item">
        <p class="where"><a href="{{href}}">{{where}}</a></p>
        {{card}}
        </div>
        """#)

    /// Links to the pages of a series.
    static let pageIndex = Template(
        #"""
        <section class="panel pages" id="{{id}}">
          <h2>{{heading}} <span class="hint">{{hint}}</span></h2>
          <p class="page-links">{{links}}</p>
        </section>
        """#)

    /// After a table on the summary: where the rest is.
    static let more = Template(
        #"""

          <p class="more">{{text}}</p>
          <p class="page-links">{{links}}</p>
        """#)

    /// One link to a page.
    static let pageLink = Template(
        #"""
        <a href="{{href}}">{{label}}</a>
        """#)

    /// The templates of a paged preview, for ``all``.
    static let book: [String: Template] = [
        "bookPageHead": bookPageHead, "bookPageTail": bookPageTail, "pagerLink": pagerLink, "itemsBody": itemsBody,
        "oversizeItem": oversizeItem, "panel": panel, "failureLinkRow": failureLinkRow, "warnedSection": warnedSection,
        "warnedRow": warnedRow, "outliers": outliers, "outlierRow": outlierRow, "sample": sample,
        "sampleCard": sampleCard, "pageIndex": pageIndex, "more": more, "pageLink": pageLink,
    ]
}
