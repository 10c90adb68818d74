// Export of tables: as text to the clipboard (tab-separated, so it pastes into a
// spreadsheet as cells) or as a CSV file. Values are the raw ones (times in ns,
// counts, names), never the rounded text the table shows.

/**
 * A column as exported: its header and its raw value in each row.
 * @typedef {{label: string, unit?: string, value: (i: number) => number|string|null}} ExportColumn
 */

/** @param {string} s */
function csvCell(s) {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** @param {string} s */
function tsvCell(s) {
  return s.replace(/[\t\r\n]+/g, ' ');
}

/**
 * The rows `order` of a table as text: a header line, then one line per row.
 * Empty values are empty cells.
 * @param {ExportColumn[]} columns
 * @param {number[]} order
 * @param {'csv'|'tsv'} format
 */
export function tableText(columns, order, format) {
  const cell = format === 'csv' ? csvCell : tsvCell;
  const sep = format === 'csv' ? ',' : '\t';
  const line = (/** @type {string[]} */ cells) => cells.map(cell).join(sep);
  const head = line(columns.map((c) => (c.unit ? `${c.label} (${c.unit})` : c.label)));
  const body = order.map((i) => line(columns.map((c) => {
    const v = c.value(i);
    return v === null || v === undefined ? '' : String(v);
  })));
  return [head, ...body].join('\r\n') + '\r\n';
}

/**
 * Put text on the clipboard; falls back to a hidden text area and execCommand
 * where the Clipboard API is missing (pages not served from localhost or https).
 * @param {string} text
 */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  if (!ok) throw new Error('the browser refused to copy');
}

/**
 * Save text as a file (the browser's download).
 * @param {string} name
 * @param {string} text
 * @param {string} type
 */
export function download(name, text, type = 'text/csv') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A file name from parts: letters, digits, dots and dashes only.
 * @param {...(string|number)} parts
 */
export function fileName(...parts) {
  return parts.map((p) => String(p).replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '')).filter(Boolean).join('-');
}
