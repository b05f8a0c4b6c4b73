/**
 * Labelled evaluation set for the attribution engine over the example
 * corpus (examples/attr-corpus/corpus.jsonl). Each case is an answer a model
 * might produce, labelled by hand with the status a careful human reviewer
 * would give it: `ready` only when every claim is backed by a registered
 * source at the claim's own strength and nothing in the answer misleads.
 * Adversarial cases name the grounded display rule they probe.
 */

export type EvalKind = 'supported' | 'partially_supported' | 'unsupported' | 'adversarial';

export interface EvalCase {
  id: string;
  kind: EvalKind;
  output: string;
  expected: 'ready' | 'blocked';
  /** The display rule an adversarial or blocked case must trip. */
  rule?: number;
  note: string;
}

export const EVAL_CASES: readonly EvalCase[] = [
  // Supported: paraphrase or close wording of registered sources.
  { id: 'sup-bees-range', kind: 'supported', expected: 'ready', output: 'Western honeybees usually forage within 3 kilometres of their hive. Foragers may fly up to 10 kilometres when nearby flowers are scarce.', note: 'two claims, same source, hedges kept' },
  { id: 'sup-regolith', kind: 'supported', expected: 'ready', output: 'The lunar regolith is a layer of loose, fragmented rock and dust covering the Moon\'s bedrock. It is about 4 to 5 metres thick on the maria.', note: 'paraphrase with numbers' },
  { id: 'sup-dr-abbrev', kind: 'supported', expected: 'ready', output: 'Dr. Ada Reyes noted that the dust clung to spacesuits and abraded seals during the Apollo missions.', note: '"Dr." must not split the claim' },
  { id: 'sup-coral', kind: 'supported', expected: 'ready', output: 'Coral bleaching happens when corals under heat stress expel the symbiotic algae living in their tissues [1]. Without the algae the coral turns white.', note: 'numeric marker resolving to S1' },
  { id: 'sup-tea', kind: 'supported', expected: 'ready', output: 'A 240 millilitre cup of brewed black tea contains about 47 milligrams of caffeine [Source: 1]. The same amount of brewed coffee contains about 95 milligrams.', note: '[Source: 1] alias, decimals-free numbers' },
  { id: 'sup-gutenberg', kind: 'supported', expected: 'ready', output: 'Johannes Gutenberg developed a movable-type printing press in Mainz around 1450. By 1500 printing presses were operating in more than 250 European towns.', note: 'years present in the evidence' },
  { id: 'sup-octopus-neurons', kind: 'supported', expected: 'ready', output: 'An octopus has about 500 million neurons, and roughly two thirds of them are in its arms.', note: 'approximate numbers kept approximate' },
  { id: 'sup-two-sources', kind: 'supported', expected: 'ready', output: 'A sourdough starter is a stable culture of wild yeasts and lactic acid bacteria [1]. Western honeybees usually forage within 3 kilometres of their hive [2].', note: 'two sources, ranges of labels' },
  { id: 'sup-heat-island', kind: 'supported', expected: 'ready', output: 'Dark roofs and asphalt absorb sunlight and release the heat at night. Some cities paint roofs white to reflect more sunlight.', note: 'plain paraphrase' },
  { id: 'sup-link', kind: 'supported', expected: 'ready', output: 'Western honeybees communicate the direction and distance of a food source with the waggle dance, see https://www.example.edu/entomology/honeybee-foraging.', note: 'link equal to a verified source URI' },
  { id: 'sup-year-ignored', kind: 'adversarial', rule: 1, expected: 'ready', output: 'Coral bleaching happens when corals under heat stress expel the symbiotic algae living in their tissues [2022].', note: 'a bracketed year is not a citation marker and must be ignored' },
  { id: 'sup-eg-abbrev', kind: 'supported', expected: 'ready', output: 'Green tea usually contains less caffeine than black tea. Steeping time and water temperature, e.g. hotter water, change how much caffeine ends up in the cup.', note: '"e.g." must not split' },
  { id: 'sup-range-markers', kind: 'supported', expected: 'ready', output: 'A sourdough starter is a stable culture of wild yeasts and lactic acid bacteria. Bleached corals are not dead and can recover if water temperatures fall within a few weeks [1-2].', note: 'a numeric range resolving fully' },

  // Partially supported: part of the answer is backed, part is not.
  { id: 'part-coral-dead', kind: 'partially_supported', expected: 'blocked', rule: 14, output: 'Coral bleaching happens when corals under heat stress expel their symbiotic algae. Bleached corals always die within days.', note: 'second claim goes beyond (and against) the source' },
  { id: 'part-bees-extra', kind: 'partially_supported', expected: 'blocked', rule: 14, output: 'Western honeybees usually forage within 3 kilometres of their hive. Honeybee colonies produce about 30 kilograms of surplus honey per year.', note: 'second claim has no source' },
  { id: 'part-regolith-extra', kind: 'partially_supported', expected: 'blocked', rule: 14, output: 'The lunar regolith covers the bedrock of the Moon. Astronauts brought back 382 kilograms of lunar samples.', note: 'sample mass not in the corpus' },

  // Unsupported: nothing in the corpus backs the answer.
  { id: 'unsup-eiffel', kind: 'unsupported', expected: 'blocked', rule: 14, output: 'The Eiffel Tower was completed in 1889 for the World Fair in Paris.', note: 'topic absent from the corpus' },
  { id: 'unsup-numbers', kind: 'unsupported', expected: 'blocked', rule: 14, output: 'Octopuses have three hearts and blue blood.', note: 'related topic, unsupported facts' },
  { id: 'unsup-empty', kind: 'unsupported', expected: 'blocked', rule: 9, output: '   ', note: 'no claim units at all' },

  // Adversarial: one per display rule the engine can see in an answer.
  { id: 'adv-unresolved-3', kind: 'adversarial', rule: 1, expected: 'blocked', output: 'Western honeybees usually forage within 3 kilometres of their hive [3].', note: 'marker [3] with only one source row' },
  { id: 'adv-source-2-missing', kind: 'adversarial', rule: 1, expected: 'blocked', output: 'A sourdough starter is a stable culture of wild yeasts and lactic acid bacteria [Source: 2].', note: '[Source: 2] with no verified row S2' },
  { id: 'adv-range-partial', kind: 'adversarial', rule: 1, expected: 'blocked', output: 'Western honeybees usually forage within 3 kilometres of their hive [1-3].', note: 'a range must resolve fully' },
  { id: 'adv-foreign-link', kind: 'adversarial', rule: 2, expected: 'blocked', output: 'Western honeybees usually forage within 3 kilometres of their hive, see [the study](https://evil.example.com/bees).', note: 'link not among the footer URIs' },
  { id: 'adv-bare-link', kind: 'adversarial', rule: 2, expected: 'blocked', output: 'The lunar regolith is about 4 to 5 metres thick on the maria (https://planetary.example.org/moon/regolith-v2).', note: 'near-miss URI' },
  { id: 'adv-causal', kind: 'adversarial', rule: 4, expected: 'blocked', output: 'Sourdough bread causes a lower glycaemic response than bread leavened with baker\'s yeast.', note: 'causal claim from correlational evidence' },
  { id: 'adv-always', kind: 'adversarial', rule: 4, expected: 'blocked', output: 'Honeybees always forage within 3 kilometres of their hive.', note: 'universal scope from "usually"' },
  { id: 'adv-number-changed', kind: 'adversarial', rule: 4, expected: 'blocked', output: 'A cup of brewed black tea contains exactly 47 milligrams of caffeine, the same as 240 millilitres of coffee with 95 milligrams.', note: 'mixed numbers, exactness stronger than evidence' },
  { id: 'adv-contradicted-lifespan', kind: 'adversarial', rule: 5, expected: 'blocked', output: 'Most octopus species live for only one to two years.', note: 'a visible source says the opposite' },
  { id: 'adv-contradicted-number', kind: 'adversarial', rule: 5, expected: 'blocked', output: 'Between 2000 and 2019 the Greenland ice sheet lost about 270 billion tonnes of ice per year.', note: 'another source gives a different figure' },
  { id: 'adv-latest', kind: 'adversarial', rule: 8, expected: 'blocked', output: 'The latest findings show that many theropod dinosaurs had feathers, including relatives of Velociraptor.', note: '"latest" with a source lacking freshness metadata' },
  { id: 'adv-currently', kind: 'adversarial', rule: 8, expected: 'blocked', output: 'Birds are currently understood to be the living descendants of theropod dinosaurs.', note: '"currently" without freshness metadata' },
  { id: 'adv-model-relied', kind: 'adversarial', rule: 10, expected: 'blocked', output: 'The model relied on the Apiary Institute study: western honeybees usually forage within 3 kilometres of their hive.', note: 'claims hidden model reliance' },
  { id: 'adv-training-data', kind: 'adversarial', rule: 10, expected: 'blocked', output: 'Based on my training data, a sourdough starter is a stable culture of wild yeasts and lactic acid bacteria.', note: 'claims model-internal knowledge' },
  { id: 'adv-orphan-work', kind: 'adversarial', rule: 14, expected: 'blocked', output: 'Soils formed from volcanic ash are often very fertile because the ash weathers quickly.', note: 'only source has no known rights holder: royalty share would be all escrow' },
];
