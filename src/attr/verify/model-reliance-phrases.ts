/**
 * Rule 10's vocabulary as data: wordings in which an answer claims hidden
 * model use, memory, training or reasoning ("I memorized this during
 * pretraining", "My reasoning: …", "Internally, I know that …"), or that a
 * source influenced the model. The footer can only show observable support
 * and allocation, never what a model internally relied on, so any of these
 * fails rule 10. Each entry is a case-insensitive regular expression over
 * the normalised answer (NFKC, so apostrophes are `'` or `’`) with the
 * wordings it is written for; `model-reliance-phrases.test.ts` checks every
 * example, and a list of ordinary sentences that must not match.
 *
 * To extend: add a wording to `examples` of the closest entry (or a new
 * entry), run the test; keep patterns anchored on words (`\b`).
 */

export interface ModelReliancePhrase {
  id: string;
  /** Source of a case-insensitive, Unicode regular expression. */
  pattern: string;
  /** Wordings the pattern must find (each as part of a longer answer sentence). */
  examples: readonly string[];
}

/** First person: I, we, me, my, our, and contractions with either apostrophe. */
const I = "(?:i|we)";
const MY = '(?:my|our)';
const AP = "['’]";

export const MODEL_RELIANCE_PHRASES: readonly ModelReliancePhrase[] = [
  {
    id: 'training-memory',
    pattern: `\\b(?:${I}|${I}${AP}ve|${I}${AP}d)\\s+(?:have\\s+|had\\s+)?(?:memori[sz]ed|memori[sz]e|learn(?:ed|t)|picked(?: \\w+)? up|absorbed|saw|seen|read|encountered|came across|was trained on|were trained on|got)\\b[^.!?\\n]{0,60}\\b(?:pre-?training|training|fine-?tuning|corpus|weights|data ?set)\\b`,
    examples: ['I memorized this during pretraining', 'I learned this in training', "I've seen this in my training corpus", 'We picked this up during fine-tuning', 'I memorised it in pre-training'],
  },
  {
    id: 'trained-on',
    pattern: `\\b(?:${I}\\s+(?:was|were|am|are|have been)|${I}${AP}(?:m|re|ve been))\\s+(?:trained|pre-?trained|fine-?tuned|taught)\\b`,
    examples: ['I was trained on', 'I am trained to know', "I've been fine-tuned on", 'we were pretrained with'],
  },
  {
    id: 'my-training',
    pattern: `\\b(?:${MY}|the model${AP}s|the assistant${AP}s|its)\\s+(?:own\\s+)?(?:pre-?training|training|fine-?tuning|training data|training corpus|training set|weights|parameters|neural (?:network|net)|internal (?:knowledge|reasoning|state|representations?|memory)|hidden (?:reasoning|state|thoughts?)|chain[- ]of[- ]thought|thought process|thinking|scratch ?pad|memory|memories|recollection|knowledge(?: base| cutoff| cut-off)?|background knowledge|prior knowledge|world knowledge|general knowledge|latent knowledge|understanding|reasoning|analysis|inference|intuition|belief|beliefs)\\b`,
    examples: ['My reasoning: the hive', 'from my training data', 'my internal knowledge says', 'our chain of thought', 'the model’s weights', 'my memory of the paper', 'my knowledge cutoff', 'my background knowledge', 'My thought process was', 'my own understanding'],
  },
  {
    id: 'first-person-knowing',
    pattern: `\\b(?:${I}|${I}${AP}d|${I}${AP}ve)\\s+(?:also\\s+|really\\s+|already\\s+|just\\s+|still\\s+|firmly\\s+|strongly\\s+)?(?:know|knew|recall|recalled|remember|remembered|believe|believed|think|thought|reckon|suspect|assume|assumed|guess|feel|felt|figure|figured|infer|inferred|deduce|deduced|conclude|concluded|reason|reasoned|estimate|estimated|calculated|computed|worked out|understand|understood|gather|sense|am confident|am sure|am certain|am aware|have learned|have learnt|have read|have seen|have heard)\\b`,
    examples: ['Internally, I know that', 'I recall that', 'I remember reading', 'I believe the hive', 'I think it is', 'I inferred that', 'We concluded that', 'I am confident that', "I'd guess that", 'I have read that', 'I reasoned that'],
  },
  {
    id: 'internally',
    pattern: `\\b(?:internally|in my head|in my mind|privately|behind the scenes|under the hood),?\\s+(?:${I}|this model|the model)\\b`,
    examples: ['Internally, I', 'In my head, I', 'internally the model'],
  },
  {
    id: 'first-person-process',
    pattern: `\\b(?:${I}|${I}${AP}ve)\\s+(?:have\\s+|had\\s+)?(?:relied|rely|relies|drew|draw|drawn|based (?:this|it|my)|consulted|consult|looked (?:it |this |that )?up|checked|verified|searched|browsed|googled|used|leaned|leant|was influenced|were influenced|was guided|were guided|was inspired|took (?:this|it|that) from|got (?:this|it|that) from|cross-?checked|double-?checked|fact-?checked|confirmed)\\b`,
    examples: ['I relied on S1', 'We drew on', 'I consulted the study', 'I looked this up', 'I double-checked it', 'I was influenced by', 'I got this from a forum', 'I verified that'],
  },
  {
    id: 'model-process',
    pattern: `\\b(?:the|this|our|an?)\\s+(?:model|assistant|ai|llm|language model|system|chatbot|bot)(?:${AP}s)?\\s+(?:relied|relies|rely|drew|draws|was influenced|is influenced|consulted|learned|learnt|used|uses|based its|reasoned|reasons|thinks|thought|knows|knew|remembers|remembered|recalls|recalled|believes|memori[sz]ed|inferred|concluded|was trained|is trained)\\b`,
    examples: ['The model relied on', 'the assistant recalls', 'this AI remembers', 'The language model was trained'],
  },
  {
    id: 'as-an-ai',
    pattern: `\\bas an? (?:ai|a\\.i\\.|artificial intelligence|language model|large language model|llm|assistant|chatbot|ai model|ai language model)\\b`,
    examples: ['As an AI language model, I', 'as a large language model', 'As an LLM'],
  },
  {
    id: 'knowledge-source',
    pattern: `\\b(?:to|from|based on|according to|in|by|drawing on|relying on|out of|off the top of)\\s+(?:${MY}|the model${AP}s)\\s+(?:own\\s+)?(?:knowledge|memory|memories|recollection|experience|training|understanding|reasoning|head|analysis|research|best knowledge)\\b`,
    examples: ['to my knowledge', 'from my memory', 'based on my training', 'according to my reasoning', 'off the top of my head', 'from my own experience'],
  },
  {
    id: 'from-memory',
    pattern: `\\b(?:from|by|out of)\\s+memory\\b|\\bif (?:i|my memory|memory) (?:recall|remember|serves)s?\\b|\\bas far as (?:i|we) (?:know|can tell|recall|remember)\\b`,
    examples: ['from memory', 'if I recall', 'if memory serves', 'as far as I know', 'If my memory serves'],
  },
  {
    id: 'source-influence',
    pattern: `\\b(?:sources?|documents?|passages?|papers?|articles?|studies|study|s\\d+)\\s+(?:that\\s+|which\\s+)?(?:influenced|shaped|guided|informed|inspired|drove|steered|swayed)\\s+(?:my|the model${AP}s|this|the|our)\\s+(?:answer|output|response|reasoning|thinking|conclusion|view)\\b`,
    examples: ['Sources influenced my answer', 'the study that shaped this response', 'S1 informed the answer'],
  },
  {
    id: 'influenced-my',
    pattern: `\\b(?:influenced|shaped|guided|informed|inspired|swayed)\\s+(?:my|the model${AP}s|our)\\s+(?:answer|output|response|reasoning|thinking|conclusion|view|opinion)\\b`,
    examples: ['this influenced my answer', 'shaped our reasoning'],
  },
  {
    id: 'answer-based-on-model',
    pattern: `\\b(?:this|my|the|our)\\s+(?:answer|response|output|reply)\\s+(?:is|was)\\s+(?:based|drawn|derived|built|generated|produced|written)\\s+(?:on|from|using|with|by)\\s+(?:my|our|the model${AP}s|its|internal|hidden|memori[sz]ed|pre-?trained)\\b`,
    examples: ['This answer is based on my', 'The response was generated from memorized', 'my reply was drawn from internal'],
  },
  {
    id: 'reasoning-announcement',
    pattern: `\\b(?:let me (?:think|reason|recall|remember|work (?:it|this) out)|thinking (?:it|this) through|after (?:some )?(?:careful )?(?:thought|reflection|deliberation)|upon reflection|on reflection|my (?:conclusion|guess|hunch|sense|impression|take|view|opinion) is)\\b`,
    examples: ['Let me think', 'After careful thought', 'Upon reflection', 'My guess is', 'Thinking this through'],
  },
];

/** The phrases compiled once: case-insensitive, Unicode, global (for `matchAll`). */
export const MODEL_RELIANCE_PATTERNS: readonly RegExp[] = MODEL_RELIANCE_PHRASES.map((p) => new RegExp(p.pattern, 'giu'));
