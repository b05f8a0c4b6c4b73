/**
 * Word lists behind the warrant profile, disagreement and answer scanners.
 * Regular expressions over lower-cased text; kept together so the force of
 * a claim and of its evidence is always judged with the same words.
 */

export const CAUSAL = /\b(causes?|caused|causing|leads? to|led to|results? in|resulted in|because of|due to|drives?|triggers?|prevents?|produces?)\b/;
/**
 * Verbs of effect ("Street trees lower surface temperatures"): causal when
 * used as a verb. The bare forms ("lower", "cut", "raise") are also
 * adjectives or nouns, so they count only when no determiner, preposition,
 * copula or degree word stands right before them ("the lower floors",
 * "associated with lower temperatures", "is lower than").
 */
export const EFFECT_VERB =
  /\b(?:(?:lowers|lowered|reduces|reduced|reducing|increases|increased|raises|raised|decreases|decreased|boosts|boosted|improves|improved|worsens|worsened|prevented|protects|protected|cures|cured|enhances|enhanced|accelerates|accelerated|slows|slowed|shrinks|shrank|halves|halved|doubles|doubled|cuts|eliminates|eliminated|stops|stopped|kills|killed|heals|healed|strengthens|strengthened|weakens|weakened)\b|(?<!\b(?:a|an|the|with|of|and|or|much|far|slightly|significantly|substantially|markedly|even|is|are|was|were|be|been|being|has|have|had|having|show|shows|showed|shown|in|at|for|than|its|their|his|her|our|my|your|some|any|no)\s)(?:lower|reduce|increase|raise|decrease|boost|improve|worsen|protect|cure|enhance|accelerate|slow|shrink|halve|double|cut|eliminate|heal|strengthen|weaken)\b)/;
export const CORRELATIONAL = /\b(associated with|linked (?:to|with)|correlat\w*|related to|tied to|coincides? with|connected (?:to|with)|predicts?|predicted)\b/;
/** A correlational cue with the word after it ("associated with lower"): that word is not a causal verb. */
export const CORRELATIONAL_PHRASE = /\b(?:associated with|linked (?:to|with)|correlat\w*(?: with)?|related to|tied to|coincides? with|connected (?:to|with))(?:\s+(?:a|an|the|its|their|much|far|slightly|significantly))?(?:\s+\S+)?/g;

/**
 * Certainty. "must" only as inference ("must have been"): "schools must
 * desegregate" reports an obligation, it does not claim more certainty than
 * a plain statement.
 */
export const CERTAIN = /\b(definitely|certainly|undoubtedly|guarantees?|guaranteed|proves?|proven|always works|without exception|must have)\b/;
export const PROBABLE = /\b(likely|probably|usually|often|tends? to|generally|reportedly|allegedly|reputedly|purportedly|supposedly)\b/;
export const POSSIBLE = /\b(may|might|could|possibly|perhaps|suggests?|potentially|appears? to|seems? to)\b/;
/**
 * The month, not the modal: "May" with a capital next to a figure ("28 May
 * 1821", "May 2019") or inside a sentence (the modal is written "may" there).
 * Removed before the text is lower-cased for the modality cues.
 */
export const MONTH_MAY = /\bMay\b(?=\s*\d)|(?<=[\p{L}\p{N},;]\s+)May\b/gu;

/** Universal scope; "each" as "every" is, not the reciprocal "each other" (decision 197). */
export const UNIVERSAL = /\b(all|every|everyone|everything|always|never|nobody|no one|entire|each and every|each(?!\s+other\b))\b/;
export const GENERAL = /\b(most|generally|typically|usually|many|commonly|mostly|largely)\b/;
export const PARTICULAR = /\b(some|several|a few|few|occasionally|sometimes|in one|one study|a small number)\b/;

/** Wording that ties a claim to the present; needs source freshness metadata (rule 8). */
export const TEMPORAL_MARKERS = /\b(current|currently|latest|recent|recently|today|now|nowadays|as of|up to date|up-to-date|this year|to date)\b/gi;

export const APPROXIMATE = /(\b(about|around|approximately|roughly|nearly|almost|circa|an estimated|estimated)\b|~)/;
export const BOUNDED = /\b(more than|over|at least|less than|fewer than|under|up to|at most|exceeds?|above|below)\b/;

/** A figure: digits or a number word (what APPROXIMATE and BOUNDED must qualify to make a figure approximate or bounded). */
const FIGURE = String.raw`(?:\d|(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|dozens?|hundreds|thousands)\b)`;
/**
 * Approximation and bounds of a figure: the cue right before a number
 * ("about 500", "roughly two thirds", "c. 1491", "more than 63,000", "an
 * estimated 30"), at most an article between them. "Around the world" or
 * "under the leadership of" qualify no figure and leave its precision alone.
 */
export const APPROXIMATE_FIGURE = new RegExp(String.raw`(?:\b(?:about|around|approximately|roughly|nearly|almost|circa|some|an estimated|estimated)\s+(?:an?\s+)?|(?<![\p{L}])c\.\s*|~\s*)${FIGURE}`, 'u');
export const BOUNDED_FIGURE = new RegExp(String.raw`\b(?:more than|over|at least|less than|fewer than|under|up to|at most|exceeds?|above|below)\s+(?:an?\s+)?${FIGURE}`);

/** Negation cues for polarity (disagreement detection). */
export const NEGATION = /\b(not|never|no|none|neither|nor|cannot|without)\b|n['’]t\b/g;
