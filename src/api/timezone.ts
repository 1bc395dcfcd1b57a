// IANA time-zone names, checked the one way that accepts every current name: by asking
// Intl.DateTimeFormat to use it. `Intl.supportedValuesOf("timeZone")` is not used: Node and
// browsers list ICU's older canonical names only (Asia/Calcutta, Asia/Katmandu, Europe/Kiev), so a
// set built from it refuses Asia/Kolkata, Asia/Kathmandu and Europe/Kyiv.

/** A bare UTC offset ("+02:00", "UTC+2", "GMT-5") is not an IANA name; anything Intl refuses is not either. */
export function isIanaTimeZone(tz: string): boolean {
  if (tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz) || /^(UTC|GMT)[+-]/i.test(tz) || /^[+-]\d/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
