/**
 * National Grid ESO Carbon Intensity API (Great Britain, no key):
 * GET {base}/intensity/{from}/fw48h → { data: [{ from, to, intensity: { forecast, actual, index } }] }.
 * Half-hourly points, gCO2/kWh. The API does not say when the forecast was made: svc uses the pull time.
 */
import { asArray, asObject, baseOf, getJson, point, within, type ForecastPuller } from './provider.ts';

export const pullUkCarbonIntensity: ForecastPuller = async (settings, req) => {
  // The API takes minutes precision in the path: 2026-11-24T10:30Z.
  const from = `${req.from.toISOString().slice(0, 16)}Z`;
  const url = new URL(`intensity/${from}/fw48h`, baseOf(settings));
  const body = asObject(settings.kind, await getJson(settings, url, {}), 'response');
  const points = asArray(settings.kind, body.data, 'data').map((raw, i) => {
    const d = asObject(settings.kind, raw, `data[${i}]`);
    const intensity = asObject(settings.kind, d.intensity, `data[${i}].intensity`);
    return point(settings.kind, req.zone, d.from, d.to, intensity.forecast, i);
  });
  return { points: within(points, req.from, req.to) };
};
