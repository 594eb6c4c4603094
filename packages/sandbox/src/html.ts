/** HTML building blocks for the hosted pages and the dashboard: escaped by default, no scripts needed. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}td,th{border:1px solid #ccc;padding:.3rem .4rem;text-align:left;vertical-align:top}
label{display:block;margin:.5rem 0}input{padding:.3rem;font-size:1rem}
button{margin:.5rem .5rem 0 0;padding:.4rem .9rem;font-size:1rem;cursor:pointer}
.box{border:1px solid #ddd;border-radius:6px;padding:1rem;margin:1rem 0}.muted{color:#666;font-size:.85rem}
.success{color:#0a0}.fail{color:#c00}.pending{color:#a60}.error{color:#c00;font-weight:bold}
form.inline{display:inline}`;

export function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  if (rows.length === 0) return '<p class="muted">none</p>';
  const head = headers.map((header) => `<th>${escapeHtml(header)}</th>`).join('');
  // Cells are pre-rendered HTML: callers escape values and may add buttons.
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}
