/**
 * Green Software Foundation Carbon Aware SDK WebAPI:
 * GET {base}/emissions/forecasts/current?location=<loc>&dataStartAt=&dataEndAt=
 * → [{ location, forecastData: [{ location, timestamp, duration (minutes), value (gCO2/kWh) }] }].
 */
import { asArray, asObject, getJson, point, within, type ForecastPuller } from './provider.ts';

export const pullCarbonAwareSdk: ForecastPuller = async (settings, req) => {
  const url = new URL('emissions/forecasts/current', `${settings.baseUrl.replace(/\/+$/, '')}/`);
  url.searchParams.set('location', req.providerZone);
  url.searchParams.set('dataStartAt', req.from.toISOString());
  url.searchParams.set('dataEndAt', req.to.toISOString());
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
  return within(points, req.from, req.to);
};
