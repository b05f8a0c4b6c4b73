/**
 * The deterministic classifier behind `model: "auto"`. Rules are checked in
 * order on the last user message (and whether the request offers tools);
 * the first that matches decides. Same input, same answer: no model, no
 * randomness. docs/ai-gateway.md lists the rules; docs/decisions/063 says
 * why rules and not a model.
 *
 * | class          | size  | signals |
 * |----------------|-------|---------|
 * | hard_reasoning | large | proof/derivation/design/debugging verbs, "step by step", code blocks, several questions, long prompts |
 * | tool_solvable  | small | tools offered, or arithmetic / unit conversion / date arithmetic |
 * | classification | small | classify, categorise, label, sentiment, yes/no, "one of" |
 * | simple         | small | anything else |
 */

export type TaskClass = 'tool_solvable' | 'classification' | 'simple' | 'hard_reasoning';

export interface TaskClassification {
  task_class: TaskClass;
  size_class: 'small' | 'large';
  /** The rule that matched, for the plan and the manifest. */
  rule: string;
}

/** Prompts longer than this (characters) are treated as hard: long contexts need the large model's window and recall. */
export const LONG_PROMPT_CHARS = 8_000;

const HARD = /\b(prove|proof|derive|derivation|theorem|step[- ]by[- ]step|reason(?:ing)? through|design (?:a|an|the)|architect|trade-?offs?|debug|refactor|optimi[sz]e|algorithm|complexity|compare and contrast|critique|plan (?:a|an|the)|multi-step|why does|why do|explain why)\b/i;
const ARITHMETIC = /^[\s\d+\-*/().,%^=?x×÷]*\d[\s\d+\-*/().,%^=?x×÷]*$|\b(?:what is|calculate|compute|how much is)\s+[\d.,]+\s*(?:[+\-*/x×÷^%]|plus|minus|times|divided by|to the power of)\s*[\d.,]+/i;
const CONVERSION = /\bconvert\b.*\b(?:to|into)\b|\b(?:how many|what is)\b.*\b(?:km|miles?|kg|lbs?|pounds|celsius|fahrenheit|inches|cm|meters?|feet|ounces?|liters?|gallons?)\b.*\bin\b/i;
const DATES = /\b(?:what day|what date|how many days|days between|days until|weekday of)\b/i;
const CLASSIFY = /\b(?:classify|classification|categori[sz]e|category|label (?:this|the|each)|sentiment|is (?:this|it) (?:spam|positive|negative|toxic)|answer (?:only )?(?:with )?yes or no|one of:|which of the following)\b/i;

export function classifyTask(lastUserText: string, toolsOffered: boolean): TaskClassification {
  const text = lastUserText.trim();
  if (text.length > LONG_PROMPT_CHARS) return { task_class: 'hard_reasoning', size_class: 'large', rule: 'long_prompt' };
  if (HARD.test(text)) return { task_class: 'hard_reasoning', size_class: 'large', rule: 'reasoning_verb' };
  if (/```/.test(text)) return { task_class: 'hard_reasoning', size_class: 'large', rule: 'code_block' };
  if ((text.match(/\?/g) ?? []).length >= 3) return { task_class: 'hard_reasoning', size_class: 'large', rule: 'several_questions' };
  if (toolsOffered) return { task_class: 'tool_solvable', size_class: 'small', rule: 'tools_offered' };
  if (ARITHMETIC.test(text)) return { task_class: 'tool_solvable', size_class: 'small', rule: 'arithmetic' };
  if (CONVERSION.test(text)) return { task_class: 'tool_solvable', size_class: 'small', rule: 'unit_conversion' };
  if (DATES.test(text)) return { task_class: 'tool_solvable', size_class: 'small', rule: 'date_arithmetic' };
  if (CLASSIFY.test(text)) return { task_class: 'classification', size_class: 'small', rule: 'classification_cue' };
  return { task_class: 'simple', size_class: 'small', rule: 'default_simple' };
}
