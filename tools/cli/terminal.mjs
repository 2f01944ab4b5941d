// Text from a knowledge base, a pack or a model printed for a person: its
// control characters are shown escaped, never sent to the terminal, where
// ESC and the C1 controls would retitle the window, clear the screen, plant
// hyperlinks or rewrite earlier lines. Bidirectional overrides are escaped
// too (they reorder what a line appears to say). Newlines and tabs stay,
// except in one-line fields.

// C0 (but \t and \n), DEL, C1, and the bidi embedding/override/isolate marks.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

function escapeChar(c) {
  const code = c.codePointAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

// Multi-line text (an answer): newlines and tabs kept.
export function printable(text) {
  return String(text).replace(UNSAFE, escapeChar);
}

// A one-line field (a title, a source, a name): every control escaped.
export function printableLine(text) {
  return String(text).replace(UNSAFE_ONE_LINE, escapeChar);
}
