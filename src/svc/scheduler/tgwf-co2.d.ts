/** `@tgwf/co2` ships no types; this is the part of its data module the embedded forecast reads. */
declare module '@tgwf/co2/data' {
  export const electricityMaps: Record<string, { data: Record<string, { carbonIntensity?: { value?: number } }> }>;
}
