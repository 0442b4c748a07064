// Material for MkDocs renders our results itself (material-worker.js speaks its
// search worker protocol). The worker cannot reach the page, so it announces
// download progress and errors on a BroadcastChannel; this shows them in Material's
// result summary line while the query they belong to (the worker's latest, which may
// trail the typing) begins the text in this page's search box. It also announces
// which ranking the list shows, kept on the result box as data-ranking ("keyword"
// while the query encoder loads, then "hybrid") and data-query, as our own search
// boxes keep them.

export const CHANNEL = "mkdocs-semantic-search";

export function attachMaterialStatus() {
  // Material's search overlay is a role=dialog without a name (axe: aria-dialog-name).
  const overlay = document.querySelector('.md-search[role="dialog"]');
  if (overlay && !overlay.hasAttribute("aria-label") && !overlay.hasAttribute("aria-labelledby")) {
    overlay.setAttribute("aria-label", document.querySelector("input[data-md-component=search-query]")
      ?.getAttribute("aria-label") || "Search");
  }
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = ({ data }) => {
    if (data.type === "results") {
      const box = document.querySelector(".md-search-result");
      if (box) Object.assign(box.dataset, { ranking: data.ranking, query: data.query });
      return;
    }
    const input = document.querySelector("input[data-md-component=search-query]");
    const meta = document.querySelector(".md-search-result__meta");
    if (!input || !meta || !data.query || !input.value.startsWith(data.query)) return;
    meta.textContent = data.text;
    meta.classList.toggle("semantic-error", data.type === "error");
  };
  return () => channel.close();
}
