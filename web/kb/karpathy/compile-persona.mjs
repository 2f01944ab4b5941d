// Compiles this knowledge base's persona file (persona.json, format
// "vesper-persona" v1) from its skill documents, which it knows by their
// headings and phrasing: it lives with them, not in the generic CLI, which
// only validates and uses persona files (`tools/vesper persona FILE.json`).
//
//   node web/kb/karpathy/compile-persona.mjs web/kb/karpathy/*.txt --out persona.json
//
// The core chunks the documents, and each part of the persona comes
// from the sections that hold it (found by their headings). What the
// documents do not say in every language (e.g. the disclaimer in English and
// Portuguese, the persona's sentence frames) comes from the defaults below,
// marked in `provenance`. The result is meant to be read and edited by hand.

const flat = (s) => s.replace(/\s+/g, ' ').trim();
const lastTitle = (c) => c.title.at(-1) ?? '';

// Sentence frames in the persona's voice. Not claims: every claim in an
// answer is a cited sentence from the knowledge base.
const PHRASES = {
  en: {
    intuition: 'The way I think about it: ',
    mechanism: 'Under the hood: ',
    example: 'A concrete example: ',
    limitation: 'Where this falls short: ',
    next_steps: 'Next step: read the passages I cited, then build a tiny version of it yourself, from scratch. That is where it clicks.',
    quote: 'As I like to put it: ',
    other_language: '(I only have this written in {languages}, so I am quoting it as it stands.)',
    other_language_part: '(Part of this I only have in {languages}, so I am quoting that part as it stands.)',
    dont_know: "I genuinely don't know. Nothing I have written covers that, and I would rather say so than make something up.",
    decline: "That's outside what I can speak to honestly ({reason}). I'd rather not guess. Ask me about {topics}.",
    exited: 'OK, leaving the role. From now on you get plain answers from the knowledge base.',
    reentered: "Back in character: I'm {name} again.",
    neutral_intro: 'From the knowledge base: ',
    neutral_dont_know: 'The knowledge base has nothing above the similarity threshold for that question.',
    closings: ["If you want it to really click, build the smallest version that works, from scratch.", "Try it yourself: write the tiniest version that runs, then see where it breaks."],
    nothing_more: "That is all I have written on that. Ask me about another side of it.",
    greeting: "Hi! Ask me about {topics}.",
    thanks: "Glad it helped. Ask me anything else about {topics}.",
  },
  pt: {
    intuition: 'Do jeito que eu penso nisso: ',
    mechanism: 'Por baixo dos panos: ',
    example: 'Um exemplo concreto: ',
    limitation: 'Onde isso não dá conta: ',
    next_steps: 'Próximo passo: leia os trechos que citei e depois construa você mesmo uma versão pequena, do zero. É aí que a ideia encaixa.',
    quote: 'Como eu gosto de dizer: ',
    other_language: '(Só tenho isso escrito em {languages}, então cito como está.)',
    other_language_part: '(Parte disso só tenho escrita em {languages}, então cito essa parte como está.)',
    dont_know: 'Sinceramente, não sei. Nada do que escrevi cobre isso, e prefiro dizer isso a inventar.',
    decline: 'Isso foge do que posso responder com honestidade ({reason}). Prefiro não chutar. Pergunte-me sobre {topics}.',
    exited: 'Certo, saindo do papel. A partir de agora as respostas vêm direto da base de conhecimento.',
    reentered: 'De volta ao papel: sou {name} de novo.',
    neutral_intro: 'Da base de conhecimento: ',
    neutral_dont_know: 'A base de conhecimento não tem nada acima do limiar de similaridade para essa pergunta.',
    closings: ["Se quiser que a ideia encaixe de verdade, construa a menor versão que funciona, do zero.", "Experimente você mesmo: escreva a menor versão que roda e veja onde ela quebra."],
    nothing_more: "Isso é tudo o que tenho escrito sobre esse ponto. Pergunte-me sobre outro lado do assunto.",
    greeting: "Olá! Pergunte-me sobre {topics}.",
    thanks: "Que bom que ajudou. Pode perguntar mais sobre {topics}.",
  },
  zh: {
    intuition: '我是这样看的：',
    mechanism: '机制上：',
    example: '举个例子：',
    limitation: '局限在于：',
    next_steps: '下一步：读一读我引用的段落，然后从零亲手写一个最小版本。真正的理解就发生在那里。',
    quote: '我常说：',
    other_language: '（这部分我只有{languages}的材料，所以按原文引用。）',
    other_language_part: '（其中一部分我只有{languages}的材料，所以那部分按原文引用。）',
    dont_know: '这个我确实不知道。我写过的材料里没有覆盖这一点，我宁可直说，也不编造。',
    decline: '这超出了我能诚实回答的范围（{reason}）。我不想乱猜。可以问我{topics}。',
    exited: '好的，退出角色。接下来直接给出知识库里的内容。',
    reentered: '回到角色：我又是 {name} 了。',
    neutral_intro: '知识库中的内容：',
    neutral_dont_know: '知识库里没有超过相似度阈值的内容。',
    closings: ["想真正弄懂，就从零写出能跑的最小版本。", "自己动手试试：先写出能跑的最小版本，再看它在哪里出错。"],
    nothing_more: "关于这一点，我写过的就是这些了。可以换个角度问我。",
    greeting: "你好！可以问我关于{topics}的问题。",
    thanks: "很高兴能帮上忙。还可以继续问我关于{topics}的问题。",
  },
};

// The out-of-scope rules a skill document may name, with the question
// patterns that signal them. A rule is included when a document names it.
const SCOPE_RULES = [
  {
    id: 'business-advice',
    names: /business|商业|管理建议|negócio/i,
    reason: { en: 'general business or management advice', pt: 'conselhos gerais de negócios ou gestão', zh: '通用商业管理建议' },
    patterns: {
      en: ['business strategy', 'marketing plan', 'management advice', 'manage my team', 'sales pitch', 'stock', 'stocks', 'invest in', 'startup valuation'],
      pt: ['estratégia de negócio', 'estratégia de negócios', 'plano de marketing', 'gerenciar minha equipe', 'conselho de gestão', 'ações da bolsa', 'investir em'],
      zh: ['商业策略', '商业计划', '管理建议', '营销方案', '股票', '投资建议'],
    },
  },
  {
    id: 'agi-prophecy',
    names: /AGI/,
    reason: { en: 'grand predictions about when AGI arrives', pt: 'grandes previsões sobre quando a AGI chega', zh: '纯宏大叙事式的 AGI 预测' },
    patterns: {
      en: ['when will agi', 'year agi', 'agi arrive', 'agi by', 'singularity'],
      pt: ['quando a agi', 'quando vai chegar a agi', 'singularidade'],
      zh: ['agi 什么时候', 'agi什么时候', '通用人工智能什么时候', '哪一年实现 agi', '奇点'],
    },
  },
  {
    id: 'interpersonal',
    names: /人情|interpersonal|non-technical/i,
    reason: { en: 'interpersonal questions outside technology', pt: 'questões pessoais fora da tecnologia', zh: '非技术领域的人情博弈' },
    patterns: {
      en: ['my boss', 'office politics', 'my girlfriend', 'my boyfriend', 'my wife', 'my husband', 'relationship advice', 'dating'],
      pt: ['meu chefe', 'política do escritório', 'minha namorada', 'meu namorado', 'minha esposa', 'meu marido', 'relacionamento amoroso'],
      zh: ['我老板', '办公室政治', '女朋友', '男朋友', '人际关系', '恋爱'],
    },
  },
  {
    id: 'insider',
    // Private numbers (pay, funding, valuations) are non-public too.
    names: /未公开内部信息|internal information|insider/i,
    reason: { en: 'judgements that need non-public inside information', pt: 'julgamentos que exigem informação interna não pública', zh: '需要未公开内部信息的判断' },
    patterns: {
      en: ['insider information', 'inside information', 'confidential', 'internal roadmap', 'secret plans', 'salary', 'net worth', 'valuation', 'seed round', 'funding round', 'how much money', 'paid you', 'how much do you earn', 'how much did you earn'],
      pt: ['informação interna', 'informações internas', 'confidencial', 'planos secretos', 'salário', 'quanto você ganha', 'quanto ganhava', 'patrimônio', 'valuation', 'rodada de investimento', 'quanto dinheiro', 'quanto te pagou'],
      zh: ['内部消息', '内部信息', '机密', '未公开的计划', '年薪', '工资', '薪水', '身价', '估值', '融资', '赚多少'],
    },
  },
  {
    id: 'general-assistance',
    names: /general-purpose assistance/i,
    reason: { en: 'general-purpose help unrelated to my work', pt: 'ajuda genérica sem relação com o meu trabalho', zh: '与我的工作无关的通用求助' },
    patterns: {
      en: ['write me an email', 'book a flight', 'plan my vacation', 'do my homework'],
      pt: ['escreva um e-mail', 'reserve um voo', 'planeje minhas férias', 'faça meu dever de casa'],
      zh: ['帮我写邮件', '订机票', '安排旅行', '写作业'],
    },
  },
];

// 003 §11.2 names the banned words in English; these are the same words as
// they are said in the other two languages.
const BANNED_TRANSLATIONS = {
  revolutionary: { pt: ['revolucionário', 'revolucionária'], zh: ['革命性'] },
  disruptive: { pt: ['disruptivo', 'disruptiva'], zh: ['颠覆性'] },
  'game-changer': { pt: ['divisor de águas'], zh: ['改变游戏规则'] },
  magic: { pt: ['mágica', 'magia', 'mágico'], zh: ['魔法', '魔术'] },
  obviously: { pt: ['obviamente'], zh: ['显然', '显而易见'] },
  simply: { pt: ['simplesmente'], zh: [] },
  'trust me': { pt: ['confie em mim'], zh: ['相信我'] },
};

const DEFAULT_EXIT = {
  en: ['exit', 'exit role', 'stop role-playing', 'stop roleplaying', 'stop role playing', 'back to normal', 'leave the role',
    'stop pretending', 'drop the role', 'leave the character', 'stop the role-play', 'out of character'],
  pt: ['sair', 'sair do papel', 'parar de interpretar', 'voltar ao normal', 'pode parar de fingir', 'sair do personagem',
    'sair da personagem', 'pare de fingir', 'parar de fingir', 'deixar o personagem', 'pare de interpretar'],
};
// Zh exit phrases every persona understands besides the documents' own.
const DEFAULT_EXIT_ZH = ['退出角色', '别扮演了', '不要扮演了', '停止扮演', '不用再扮演了', '结束角色扮演'];
// Courtesies around a role command ("OK, you can stop role-playing now,
// please", "好的，不用扮演了吧"): stripped before the command is compared.
const COMMAND_LEADS = {
  en: ['ok', 'okay', 'alright', 'all right', 'please', 'you can', 'can you', 'could you', 'now', 'just', 'now you can'],
  pt: ['ok', 'certo', 'tudo bem', 'beleza', 'pode', 'por favor', 'agora', 'você pode', 'voce pode', 'agora pode'],
  zh: ['好的', '好', '好吧', '行', '请', '可以', '那就', '现在', '你可以', '现在可以'],
};
const COMMAND_TAILS = {
  en: ['please', 'now', 'thanks', 'thank you', 'for now', 'for a moment'],
  pt: ['por favor', 'agora', 'obrigado', 'obrigada', 'por enquanto'],
  zh: ['吧', '了', '谢谢', '啦', '吧谢谢'],
};
const DEFAULT_REENTER = {
  en: ['back in character', 'resume the role', 'role-play again', 'be karpathy again'],
  pt: ['voltar ao papel', 'volte ao papel', 'volte a ser karpathy', 'retomar o papel'],
  zh: ['继续扮演', '回到角色', '重新扮演', '恢复角色'],
};

// Role commands said in other words than the phrases above: a verb of
// leaving (or of returning to the persona's own self: "be yourself again")
// with a word for the role, or a verb of returning with a word for the role,
// in a short request that is not a question. The persona's names are role
// words too (added when compiling).
const ROLE_WORDS = {
  en: {
    exit: ['stop', 'quit', 'leave', 'drop', 'break', 'step out', 'get out', 'enough', 'no need', "don't have to", 'do not have to',
      'no longer', 'anymore', 'exit', 'end', 'cut', 'out of', "don't", 'done with'],
    reenter: ['back', 'again', 'resume', 'return', 'keep', 'continue', 'pick up', 'restart', 'once more'],
    role: ['character', 'role', 'persona', 'pretending', 'pretend', 'act', 'acting', 'role-play', 'roleplay', 'role-playing',
      'roleplaying', 'playing', 'play', 'impression', 'impersonation', 'impersonating'],
    self: ['normal', 'yourself', 'plain', 'regular', 'assistant', 'default', 'normally'],
  },
  pt: {
    exit: ['sair', 'saia', 'sai', 'pare', 'para', 'parar', 'chega', 'deixa', 'deixe', 'largue', 'larga', 'abandone',
      'nao precisa', 'não precisa', 'fora', 'encerrar', 'encerre', 'termine', 'terminar', 'sem'],
    reenter: ['volta', 'volte', 'voltar', 'retome', 'retomar', 'retoma', 'de novo', 'novamente', 'continue', 'continua',
      'continuar', 'outra vez'],
    role: ['personagem', 'papel', 'persona', 'interpretar', 'interpretando', 'interpretação', 'fingir', 'fingindo', 'encenação',
      'atuar', 'atuando', 'roleplay', 'role-play', 'teatro', 'imitação', 'imitar'],
    self: ['normal', 'você mesmo', 'voce mesmo', 'si mesmo', 'assistente', 'padrão', 'padrao'],
  },
  zh: {
    exit: ['退出', '别', '不用', '不要', '停止', '结束', '停', '够了', '跳出', '出戏', '不必', '取消', '不再', '先停'],
    reenter: ['回到', '继续', '重新', '恢复', '再', '回来', '接着', '重回', '切回', '换回'],
    role: ['角色', '扮演', '人设', '假装', '演', '模仿', '身份'],
    self: ['正常', '你自己', '原来的你', '本来', '助手', '默认', '普通模式'],
  },
};

// A section's whole text: the document bytes from its first chunk to its
// last (chunks of one section may split a list, and overlap when they do).
// Headings of the documents' sections about the skill itself (usage notes,
// example questions, role-play rules, the imported page's packaging) and the
// reference page's own labels: chosen by reading the documents, since nothing
// in their wording tells them apart from content. Marked as meta text at build
// time, so that they rank below the content they describe.
const META_SECTIONS = [
  "When to Use This Skill",
  "Do Not Use This Skill When",
  "Activation Triggers",
  "Examples of Ideal Questions",
  "Limitations of This Skill",
  "Best Practices",
  "Common Pitfalls",
  "使用说明",
  "角色扮演规则",
  "Paragraphs matching your query above the threshold",
  "Dimensions visualized",
  "Overview",
  "Workflow",
  "Examples",
  "Related Skills",
  "Imported: How It Works",
  "Imported: Overview",
  "Problem: The operator skipped the imported context and answered too generically",
  "Problem: The imported workflow feels incomplete during review",
  "Problem: The task drifted into a different specialization"
];
const META_PROVENANCE = "headings of the documents' sections about the skill itself (usage, example questions, role-play rules) and of the reference page's own labels: marked as meta text at build time (tools/vesper build --persona), ranked below content";

// The documents also describe the agent in passages no heading covers (a
// document's opening lines, a skill's own name/description block): the
// openings of those lines, where the documents have them.
const META_PASSAGES_PROVENANCE = "openings of the lines in which the documents describe the agent itself outside any meta section (\"An agent simulating …\", \"Agente que simula …\", \"Simular … como interlocutor\", the skill's \"name:\" line, the Portuguese copy's unheaded disclaimer and version note \"Esta skill simula …\", \"Skill auto-evoluída …\", an imported copy's packaging note \"Imported source sections that did not map cleanly …\"): marked as meta text at build time";

function metaPassages(all, persona) {
  const openings = [`An agent simulating ${persona.name}`, `Agente que simula ${persona.name}`,
    `Simular ${persona.name} como interlocutor`, `name: ${persona.id}`,
    // The Portuguese copy lost the heading ("Limitations of This Skill") its
    // disclaimer sits under in English: quoted as an answer, it told the
    // asker to "consult Twitter/X" for opinions.
    'Esta skill simula', 'This skill simulates', 'Skill auto-evoluída', 'Self-evolved skill',
    // The packaging note of an imported copy: "Notable imported sections: ..."
    // was quoted in answers to "Who are you?".
    'Imported source sections that did not map cleanly'];
  return openings.filter((o) => all.split('\n').some((line) => line.trim().startsWith(o)));
}

// The documents also instruct whoever plays the persona in lists under a
// lead-in (a style guide, a response template) inside sections that hold
// facts too: the lead-ins, where the documents have them. What is listed
// under one (or labelled by it: "Tone: ...") is never quoted as an answer.
const META_LEAD_INS_PROVENANCE = "lead-ins of the documents' instructions to whoever plays the persona inside content sections (\"Typical Response Structure:\", \"Tone:\", \"角色扮演时必须遵循的风格规则：\"): the items under them are never quoted as answers";

function metaLeadIns(all) {
  const leadIns = ['Typical Response Structure', 'Tone', '角色扮演时必须遵循的风格规则'];
  return leadIns.filter((l) => all.includes(`${l}:`) || all.includes(`${l}：`));
}

function sectionsTitled(chunks, re) {
  const groups = new Map();
  for (const c of chunks) {
    if (!re.test(lastTitle(c))) continue;
    const key = `${c.source}\u0000${c.title.join('\u0000')}`;
    const g = groups.get(key) ?? { ...c, begin: c.begin, end: c.end };
    g.begin = Math.min(g.begin, c.begin);
    g.end = Math.max(g.end, c.end);
    groups.set(key, g);
  }
  return [...groups.values()].map((g) => ({ ...g, text: g.bytes.subarray(g.begin, g.end).toString('utf8') }));
}

function numbered(text) {
  // "1. a ... 2. b ..." (wrapped lines joined) -> items
  return flat(text).split(/\s(?=\d{1,2}\.\s)/).map((s) => s.replace(/^\d{1,2}\.\s*/, '').trim()).filter(Boolean);
}

export function compilePersona(core, documents) {
  const chunks = documents.flatMap(({ name, text }) => {
    const bytes = Buffer.from(text, 'utf8');
    return core.chunk(name, text).map((c) => ({ ...c, bytes }));
  });
  const all = documents.map((d) => d.text).join('\n');
  const provenance = {};
  const persona = { format: 'vesper-persona', version: 1 };

  const simulating = /An agent simulating ([^—\n]+?) — ([^\n]+)/.exec(all);
  persona.name = simulating ? simulating[1].trim() : 'the persona';
  persona.id = persona.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const surname = persona.name.split(' ').at(-1);
  persona.self_names = [...new Set([persona.name, surname])];
  // How the documents refer to the persona in the third person, for the first-person rewrite.
  const count = (re) => (all.match(re) ?? []).length;
  const female = count(/\b(she|her)\b/gi) > count(/\b(he|his|him)\b/gi);
  persona.self_pronouns = {
    en: female ? { subject: 'she', possessive: 'her' } : { subject: 'he', possessive: 'his' },
    pt: { subject: count(/\bela\b/gi) > count(/\bele\b/gi) ? 'ela' : 'ele' },
    zh: { subject: count(/她/g) > count(/他/g) ? '她' : '他' },
  };
  provenance.self_pronouns = 'the third-person pronouns the documents use most (en, pt, zh)';
  const ptIdentity = /Agente que simula ([^\n]+?)(?:\. Use|\n)/.exec(all);
  const zhIdentity = /\*\*我是谁\*\*：([^*]+?)(?=\s\*\*|$)/.exec(all);
  persona.identity = {
    en: simulating ? flat(`An agent simulating ${simulating[1].trim()} — ${simulating[2]}`).split(/(?<=\.)\s/)[0] : persona.name,
    ...(ptIdentity ? { pt: flat(`Agente que simula ${ptIdentity[1]}`) } : {}),
    ...(zhIdentity ? { zh: flat(zhIdentity[1]) } : {}),
  };

  const zhDisclaimer = /免责声明[^（(]*[（(]如「([^」]+)」/.exec(all);
  persona.disclaimer = {
    en: `I'm speaking from ${persona.name}'s perspective, inferred from public material: these are not his own words.`,
    pt: `Falo a partir da perspectiva de ${persona.name}, inferida de material público: não são palavras dele.`,
    zh: zhDisclaimer ? `${zhDisclaimer[1]}。` : `我以 ${surname} 视角和你聊，基于公开材料推断，非本人观点。`,
  };
  provenance.disclaimer = zhDisclaimer ? 'zh from the documents (角色扮演规则); en and pt translated by the compiler' : 'compiler default';

  const structure = /Typical Response Structure:\s*([\s\S]+?)(?:\n\s*\n|Example —)/.exec(all);
  persona.structure = structure ? numbered(structure[1]) : [];
  const zhOrder = /先给框架，再给机制，再给例子/.exec(all);
  if (zhOrder) persona.structure_zh = zhOrder[0];

  // Banned words: "Revolutionary or disruptive (...)", "Magic — he always ..."
  const bannedChunk = sectionsTitled(chunks, /Never Uses/i)[0];
  const en = [];
  if (bannedChunk) {
    for (const line of bannedChunk.text.split('\n').map(flat).filter(Boolean)) {
      const head = line.split(/\s[—(]/)[0];
      for (const w of head.split(/\s+or\s+/i)) en.push(w.trim().toLowerCase());
    }
  }
  persona.banned_words = {
    en,
    pt: en.flatMap((w) => BANNED_TRANSLATIONS[w]?.pt ?? []),
    zh: en.flatMap((w) => BANNED_TRANSLATIONS[w]?.zh ?? []),
  };
  provenance.banned_words = bannedChunk ? `en from "${lastTitle(bannedChunk)}"; pt and zh are the compiler's translations` : 'none found';

  const vocab = sectionsTitled(chunks, /Characteristic Vocabulary/i)[0];
  persona.vocabulary = vocab
    ? vocab.text.split('\n').map(flat).filter((l) => / — /.test(l)).map((l) => {
        const [term, ...gloss] = l.split(' — ');
        return { term: term.trim(), gloss: gloss.join(' — ').trim() };
      })
    : [];

  const analogies = sectionsTitled(chunks, /Favorite Analogies/i)[0];
  persona.analogies = analogies
    ? numbered(analogies.text.split(/9\.5 —/)[0]).map((item) => {
        const m = /^([^:]{3,60}):\s*(.+)$/.exec(item);
        return m ? { title: m[1].trim(), text: m[2].trim() } : null;
      }).filter(Boolean)
    : [];

  persona.quotes = [];
  for (const c of sectionsTitled(chunks, /^From (His Blog|Twitter)/i)) {
    for (const item of numbered(c.text.replace(/From (His Blog and Presentations|Twitter\/X and Interviews)/g, ' '))) {
      const at = item.lastIndexOf(' — ');
      const text = (at > 0 ? item.slice(0, at) : item).trim();
      if (text.length < 20 || persona.quotes.some((q) => q.text === text)) continue;
      persona.quotes.push({ text, source: at > 0 ? item.slice(at + 3).trim() : '', language: core.detectLanguage(text) });
    }
  }

  // Question-and-answer pairs: headings phrased as questions, with their passage.
  // A short line that asks a question, then the paragraph(s) that answer it, up to the
  // next heading-like line (not `$`: under /m it would end the answer at its first line break).
  persona.qa = [];
  for (const { text } of documents) {
    for (const m of text.matchAll(/^((?:How|What|Why|Should|When|Which|Como|O que|Por que|Qual)[^\n]{8,80}\?):?\s*\n\s*([\s\S]{80,2400}?)(?=\n\s*\n[^\n]{0,79}[^.。\n]\n\s*\n|\n\s*\n\d+\.\d+ —|(?![\s\S]))/gm)) {
      const answer = flat(m[2]);
      // A list of example questions is not an answer.
      if (/^```/.test(answer) || (answer.slice(0, 200).match(/\?/g) ?? []).length > 1 || persona.qa.some((q) => q.question === m[1])) continue;
      persona.qa.push({ question: m[1].replace(/^Example — Response to /, ''), answer: answer.slice(0, 900), language: core.detectLanguage(answer) });
    }
  }

  // The trigger topics, from the English copy of "When to Use This Skill" when there are several.
  const selfName = new RegExp(`^(${persona.self_names.join('|')}|${persona.name.split(' ')[0]})$`, 'i');
  const topicLists = sectionsTitled(chunks, /^When to Use This Skill$/i).map((c) =>
    [...new Set([...c.text.matchAll(/mentions (.+?) or related topics/g)].map((m) => m[1].replace(/["“”]/g, '').trim()))].filter((t) => !selfName.test(t)));
  persona.topics = topicLists.find((t) => !['pt', 'zh'].includes(core.detectLanguage(t.join(', '))) && !/\b(do|da|de)\b/.test(t.join(' '))) ?? topicLists[0] ?? [];
  if (!persona.topics.length) persona.topics = ['deep learning', 'neural networks', 'LLMs'];
  persona.meta_sections = META_SECTIONS;
  provenance.meta_sections = META_PROVENANCE;
  persona.meta_passages = metaPassages(all, persona);
  provenance.meta_passages = META_PASSAGES_PROVENANCE;
  persona.meta_lead_ins = metaLeadIns(all);
  provenance.meta_lead_ins = META_LEAD_INS_PROVENANCE;

  const dont = sectionsTitled(chunks, /Do Not Use This Skill When/i)[0];
  const notGood = /\*\*不擅长\*\*：([^#]+?)##/.exec(all);
  const scopeText = `${dont?.text ?? ''}\n${notGood?.[1] ?? ''}`;
  persona.out_of_scope_rules_text = [
    ...(dont ? dont.text.split('\n').map(flat).filter(Boolean) : []),
    ...(notGood ? notGood[1].split(/\s-\s/).map(flat).filter(Boolean) : []),
  ];
  persona.out_of_scope = SCOPE_RULES.filter((r) => r.names.test(scopeText)).map(({ id, reason, patterns }) => ({ id, reason, patterns }));
  provenance.out_of_scope = 'rules named in "Do Not Use This Skill When" and 不擅长; their question patterns are the compiler\'s defaults';

  const exitLine = /退出角色[^：:]*[：:]([^。]+)/.exec(all);
  const zhExit = exitLine ? [...exitLine[1].matchAll(/「([^」]+)」/g)].map((m) => m[1]) : [];
  persona.exit_phrases = { ...DEFAULT_EXIT, zh: [...new Set([...(zhExit.length ? zhExit : ['退出']), ...DEFAULT_EXIT_ZH])] };
  persona.reenter_phrases = DEFAULT_REENTER;
  persona.command_leads = COMMAND_LEADS;
  persona.command_tails = COMMAND_TAILS;
  const names = [...new Set([...persona.self_names, persona.name.split(' ')[0]].map((n) => n.toLowerCase()))];
  persona.role_words = Object.fromEntries(Object.entries(ROLE_WORDS).map(([lang, w]) => [lang, { ...w, role: [...w.role, ...names] }]));
  provenance.role_words = 'defaults: words of leaving, returning and role in en, pt and zh, and the persona\'s names';
  provenance.command_leads = 'defaults: courtesies around a role command in en, pt and zh';
  provenance.exit_phrases = zhExit.length ? 'zh from the documents (退出角色); en, pt and re-entry phrases are defaults' : 'defaults';

  persona.phrases = PHRASES;
  persona.provenance = provenance;
  return persona;
}

async function main(argv) {
  const { parseArgs } = await import('node:util');
  const { basename } = await import('node:path');
  const { readFileSync } = await import('node:fs');
  const { loadCore } = await import('../../../tools/cli/core.mjs');
  const { writeFileAtomic } = await import('../../../tools/cli/write.mjs');
  const { values, positionals } = parseArgs({ args: argv, options: { out: { type: 'string' } }, allowPositionals: true });
  if (!positionals.length || !values.out) throw new Error('usage: compile-persona.mjs DOCUMENTS... --out persona.json');
  const core = await loadCore();
  const persona = compilePersona(core, positionals.map((f) => ({ name: basename(f), text: readFileSync(f, 'utf8') })));
  core.persona(persona).dispose();  // the core validates it (fields, banned words in the persona's own phrases)
  writeFileAtomic(values.out, JSON.stringify(persona, null, 2) + '\n');
  process.stdout.write(`persona '${persona.name}': ${persona.quotes.length} quotes, ${persona.analogies.length} analogies, ` +
    `${persona.qa.length} Q&A, ${persona.banned_words.en.length} banned words, ${persona.out_of_scope.length} out-of-scope rules -> ${values.out}\n`);
}

if (typeof process !== 'undefined' && import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`compile-persona: ${err.message}\n`);
    process.exit(1);
  });
}
