// JSON with its numbers kept as written: JavaScript's JSON.parse turns every number
// into a double, which rounds integers past 2^53 (Chrome's 64-bit ids). Here a
// number is an `ExactNumber` holding its text, so it shows exactly as the trace
// has it.

/** A JSON number as written. */
export class ExactNumber {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

/**
 * Parse JSON text, numbers as `ExactNumber`s. Throws a SyntaxError on bad JSON.
 * @param {string} text
 * @returns {unknown}
 */
export function parseExact(text) {
  let i = 0;
  const fail = () => {
    throw new SyntaxError(`bad JSON at ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  /** @returns {unknown} */
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      /** @type {Record<string, unknown>} */
      const o = {};
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const k = string();
        ws();
        if (text[i++] !== ':') fail();
        o[k] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return o;
        } else fail();
      }
    }
    if (c === '[') {
      i++;
      /** @type {unknown[]} */
      const a = [];
      ws();
      if (text[i] === ']') {
        i++;
        return a;
      }
      for (;;) {
        a.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return a;
        } else fail();
      }
    }
    if (c === '"') return string();
    for (const [word, v] of /** @type {Array<[string, unknown]>} */ ([['true', true], ['false', false], ['null', null]])) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += /** @type {RegExpExecArray} */ (m)[0].length;
    return new ExactNumber(/** @type {RegExpExecArray} */ (m)[0]);
  };
  const string = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return /** @type {string} */ (JSON.parse(text.slice(start, i)));
  };
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
}
