/**
 * WattTime v3: GET {base}/login (HTTP basic auth; the key env var holds "user:password") → { token },
 * once per pull for all zones; GET {base}/v3/forecast?region=<region>&signal_type=co2_moer (Bearer token)
 * → { data: [{ point_time, value }], meta: { data_point_period_seconds, units: "lbs_co2_per_mwh", generated_at } }.
 * lbs/MWh × 0.453592 = gCO2/kWh. MOER is marginal intensity: what a shifted load changes.
 */
import { asArray, asObject, baseOf, getJson, issueTime, point, providerError, within, type ForecastPuller, type ProviderSettings } from './provider.ts';

const LBS_PER_MWH_TO_G_PER_KWH = 0.453592;

async function token(settings: ProviderSettings, credentials: string): Promise<string> {
  const known = settings.session.get('watttime-token');
  if (known !== undefined) return known;
  const login = asObject(settings.kind, await getJson(settings, new URL('login', baseOf(settings)), { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }), 'login response');
  if (typeof login.token !== 'string' || login.token === '') throw providerError(settings.kind, 'login answered without a token');
  settings.session.set('watttime-token', login.token);
  return login.token;
}

export const pullWattTime: ForecastPuller = async (settings, req) => {
  const colon = settings.apiKey?.indexOf(':') ?? -1;
  if (!settings.apiKey || colon <= 0) throw providerError(settings.kind, 'no credentials (the environment variable must hold "user:password")');
  const url = new URL('v3/forecast', baseOf(settings));
  url.searchParams.set('region', req.providerZone);
  url.searchParams.set('signal_type', 'co2_moer');
  const body = asObject(settings.kind, await getJson(settings, url, { authorization: `Bearer ${await token(settings, settings.apiKey)}` }), 'response');
  const meta = asObject(settings.kind, body.meta, 'meta');
  if (meta.units !== 'lbs_co2_per_mwh') throw providerError(settings.kind, `unexpected units ${JSON.stringify(meta.units)}`);
  const period = typeof meta.data_point_period_seconds === 'number' && meta.data_point_period_seconds > 0 ? meta.data_point_period_seconds : Number.NaN;
  if (!Number.isFinite(period)) throw providerError(settings.kind, 'meta.data_point_period_seconds is missing');
  const points = asArray(settings.kind, body.data, 'data').map((raw, i) => {
    const d = asObject(settings.kind, raw, `data[${i}]`);
    const start = Date.parse(String(d.point_time));
    const value = typeof d.value === 'number' ? d.value * LBS_PER_MWH_TO_G_PER_KWH : d.value;
    return point(settings.kind, req.zone, d.point_time, Number.isFinite(start) ? new Date(start + period * 1000).toISOString() : undefined, value, i);
  });
  return { points: within(points, req.from, req.to), issuedAt: issueTime(meta.generated_at) };
};
