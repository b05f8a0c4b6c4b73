/**
 * Green Software Foundation Carbon Aware SDK WebAPI:
 * GET {base}/emissions/forecasts/current?location=<loc> (optional `x-api-key`)
 * → [{ generatedAt, location, forecastData: [{ location, timestamp, duration (minutes), value (gCO2/kWh) }] }].
 * `dataStartAt`/`dataEndAt` are not sent: the SDK answers 400 when they fall outside the upstream forecast, and
 * svc keeps only its own horizon anyway.
 */
import { asArray, asObject, baseOf, getJson, issueTime, point, within, type ForecastPuller } from './provider.ts';

export const pullCarbonAwareSdk: ForecastPuller = async (settings, req) => {
  const url = new URL('emissions/forecasts/current', baseOf(settings));
  url.searchParams.set('location', req.providerZone);
  const headers: Record<string, string> = settings.apiKey ? { 'x-api-key': settings.apiKey } : {};
  const body = asArray(settings.kind, await getJson(settings, url, headers), 'response');
  const first = asObject(settings.kind, body[0], 'forecast');
  const data = asArray(settings.kind, first.forecastData, 'forecastData');
  const points = data.map((raw, i) => {
    const d = asObject(settings.kind, raw, `forecastData[${i}]`);
    const start = Date.parse(String(d.timestamp));
    const minutes = typeof d.duration === 'number' ? d.duration : Number.NaN;
    return point(settings.kind, req.zone, d.timestamp, Number.isFinite(start) && minutes > 0 ? new Date(start + minutes * 60_000).toISOString() : undefined, d.value, i);
  });
  return { points: within(points, req.from, req.to), issuedAt: issueTime(first.generatedAt) };
};
