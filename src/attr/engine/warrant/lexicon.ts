/**
 * Word lists behind the warrant profile, disagreement and answer scanners.
 * Regular expressions over lower-cased text; kept together so the force of
 * a claim and of its evidence is always judged with the same words.
 */

export const CAUSAL = /\b(causes?|caused|causing|leads? to|led to|results? in|resulted in|because of|due to|drives?|triggers?|prevents?|produces?)\b/;
export const CORRELATIONAL = /\b(associated with|linked to|correlat\w*|related to|tied to|coincides? with)\b/;

export const CERTAIN = /\b(definitely|certainly|undoubtedly|guarantees?|guaranteed|proves?|proven|always works|without exception|must)\b/;
export const PROBABLE = /\b(likely|probably|usually|often|tends? to|generally)\b/;
export const POSSIBLE = /\b(may|might|could|possibly|perhaps|suggests?|potentially|appears? to|seems? to)\b/;

export const UNIVERSAL = /\b(all|every|everyone|everything|always|never|nobody|no one|entire|each and every)\b/;
export const GENERAL = /\b(most|generally|typically|usually|many|commonly|mostly|largely)\b/;
export const PARTICULAR = /\b(some|several|a few|few|occasionally|sometimes|in one|one study|a small number)\b/;

/** Wording that ties a claim to the present; needs source freshness metadata (rule 8). */
export const TEMPORAL_MARKERS = /\b(current|currently|latest|recent|recently|today|now|nowadays|as of|up to date|up-to-date|this year|to date)\b/gi;

export const APPROXIMATE = /(\b(about|around|approximately|roughly|nearly|almost|circa|an estimated|estimated)\b|~)/;
export const BOUNDED = /\b(more than|over|at least|less than|fewer than|under|up to|at most|exceeds?|above|below)\b/;

/** Negation cues for polarity (disagreement detection). */
export const NEGATION = /\b(not|never|no|none|neither|nor|cannot|without)\b|n['’]t\b/g;

/**
 * Claims about hidden model use, reasoning or source influence (rule 10):
 * the footer can only show observable support and allocation, never what a
 * model internally relied on.
 */
export const MODEL_RELIANCE_PATTERNS: readonly RegExp[] = [
  /\b(?:the|this|our) (?:model|assistant|ai|llm|system)(?:'s)? (?:relied|relies|rely|drew|draws|was influenced|is influenced|consulted|learned|used|uses|based its|reasoned)\b/gi,
  /\b(?:i|we) (?:relied|rely|drew|draw|was influenced|were influenced|learned|consulted)\b/gi,
  /\b(?:my|our|the model's|its) (?:training data|internal reasoning|hidden reasoning|chain of thought|weights|internal knowledge)\b/gi,
  /\b(?:source|sources) (?:influenced|shaped|guided) (?:my|the model's|this|the) (?:answer|output|response|reasoning)\b/gi,
  /\binfluenced (?:my|the model's) (?:answer|output|response|reasoning)\b/gi,
  /\bbased on (?:my|the model's) (?:training|reasoning|internal knowledge)\b/gi,
];
