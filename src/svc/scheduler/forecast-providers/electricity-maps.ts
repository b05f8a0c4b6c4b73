/**
 * Electricity Maps: GET {base}/v3/carbon-intensity/forecast?zone=<zone>, header `auth-token`
 * → { zone, forecast: [{ carbonIntensity (gCO2eq/kWh), datetime }], updatedAt }. Points are
 * hourly: each lasts until the next one (the last one one hour).
 */
import { asArray, asObject, baseOf, getJson, issueTime, point, providerError, within, type ForecastPuller } from './provider.ts';

const H = 3_600_000;

export const pullElectricityMaps: ForecastPuller = async (settings, req) => {
  if (!settings.apiKey) throw providerError(settings.kind, 'no API key (set the environment variable the config names)');
  const url = new URL('v3/carbon-intensity/forecast', baseOf(settings));
  url.searchParams.set('zone', req.providerZone);
  const body = asObject(settings.kind, await getJson(settings, url, { 'auth-token': settings.apiKey }), 'response');
  const forecast = asArray(settings.kind, body.forecast, 'forecast');
  const starts = forecast.map((raw, i) => asObject(settings.kind, raw, `forecast[${i}]`));
  const points = starts.map((f, i) => {
    const next = starts[i + 1]?.datetime;
    const end = next ?? (Number.isFinite(Date.parse(String(f.datetime))) ? new Date(Date.parse(String(f.datetime)) + H).toISOString() : undefined);
    return point(settings.kind, req.zone, f.datetime, end, f.carbonIntensity, i);
  });
  return { points: within(points, req.from, req.to), issuedAt: issueTime(body.updatedAt) };
};
