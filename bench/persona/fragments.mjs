// What a persona answer must never contain: a heading or label on its own, a
// list marker fragment, a label with nothing after it, an arrow, an
// "Imported:" prefix, a question quoted from the knowledge base, a timeline
// row, or a sentence cut mid-way. Checked on every answer of the graded set
// (tests/node/persona-answers.test.mjs) and reported by bench/persona/eval.mjs.

// The quoted parts of an answer: the text before each citation mark, back to
// the previous mark or block start, with the persona's frame removed where a
// colon frame precedes it ("Under the hood: ").
function quotedParts(answer) {
  const parts = [];
  for (const block of answer.split(/\n\n+/)) {
    let from = 0;
    for (const m of block.matchAll(/ ?\[\d+\]/g)) {
      parts.push(block.slice(from, m.index).trim());
      from = m.index + m[0].length;
    }
  }
  return parts.filter(Boolean);
}

const TERMINAL = /[.!?。！？…"”')）]$/u;
const TIMELINE_ROW = /^(~|c\.\s?)?\d{4}s?(\s?[–-]\s?\d{2,4})?\s+\p{Lu}/u;
const LIST_MARKER = /\s([-*•]|\d{1,2}[.)])$|^([-*•]|\d{1,2}[.)])\s/u;

// Returns the problems found in one answer (empty: clean). headings: the
// knowledge base's heading texts, folded to lower case.
export function fragmentsOf(answer, headings = new Set()) {
  const problems = [];
  if (answer.includes('→')) problems.push('arrow');
  if (/Imported:/i.test(answer)) problems.push('"Imported:"');
  for (const raw of quotedParts(answer)) {
    // The part after the persona's frame: the frame is the text up to the last ": " before a capital.
    const part = raw.replace(/^.*?[:：]\s*(?=\S)/su, (m) => (m.length < 48 ? '' : m));
    if (!part) { problems.push(`empty quote after "${raw}"`); continue; }
    if (/[:：]$/u.test(part)) problems.push(`label with nothing after it: "${part}"`);
    else if (!TERMINAL.test(part) && part.length > 0) problems.push(`cut mid-way: "${part.slice(-60)}"`);
    if (/[?？]$/u.test(part)) problems.push(`a question quoted: "${part}"`);
    if (headings.has(part.toLowerCase().replace(/[.。]$/u, ''))) problems.push(`a heading: "${part}"`);
    if (TIMELINE_ROW.test(part)) problems.push(`a timeline row: "${part.slice(0, 60)}"`);
    if (LIST_MARKER.test(part)) problems.push(`a list marker: "${part.slice(0, 60)}"`);
    if (part.includes('…')) problems.push(`cut with an ellipsis: "${part.slice(-60)}"`);
  }
  return problems;
}

// Every heading text of a collection's chunks, for fragmentsOf.
export function headingsOf(chunks) {
  const out = new Set();
  for (const c of chunks) for (const t of c.title) out.add(t.toLowerCase().trim());
  return out;
}

// The instructions the knowledge base gives whoever plays the persona: the
// items listed under the persona file's meta_lead_ins ("Typical Response
// Structure:", "角色扮演时必须遵循的风格规则：") and the fields they label
// ("Tone: ..."), each as its first words (markup removed), for instructionsIn.
// Text without emphasis and code marks, its white space collapsed: how an
// answer quotes a knowledge-base line.
const plain = (t) => t.replace(/[*`]/g, '').replace(/\s+/g, ' ').trim();

export function instructionsOf(chunks, leadIns = []) {
  const out = new Set();
  const escape = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const c of chunks) {
    const text = plain(c.text);
    for (const lead of leadIns) {
      for (const m of text.matchAll(new RegExp(`${escape(lead)}[:：]\\s*`, 'gu'))) {
        // The items up to the next heading.
        const block = ` ${text.slice(m.index + m[0].length).split(/\s#{1,6}\s/u)[0]}`;
        const items = block.split(/\s(?:-|\d{1,2}\.)\s/u).map((i) => i.trim()).filter((i) => i.length >= 8);
        // Each item as the answer would quote it: without its label ("句式：").
        for (const item of items) out.add(item.replace(/^[^:：]{1,12}[:：]\s*/u, '').slice(0, 20));
      }
    }
  }
  return out;
}

// The instructions (instructionsOf) an answer quotes.
export function instructionsIn(answer, instructions) {
  const flat = plain(answer);
  return [...instructions].filter((i) => flat.includes(i)).map((i) => `an instruction to the persona quoted: "${i}"`);
}
