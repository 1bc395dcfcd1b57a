// Timestamps from the data API → Excel serial numbers (1900 date system).
//
// The data API sends "YYYY-MM-DDTHH:mm:ss.sss" wall-clock time in the query's timezone, with no
// zone. We write that wall-clock time as it is: no conversion, no daylight-saving arithmetic; the
// sheet shows what the platform shows. A timestamp that does carry a zone ("Z" or ±HH:MM) is an
// instant: it is first turned into wall-clock time in the query's timezone. docs/CHECKSUM.md §2.7.

export interface WallClock {
  year: number;
  month: number; // 1..12
  day: number; // 1..31
  /** Seconds since midnight, fraction included (0 ≤ seconds < 86400). */
  seconds: number;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

const MS_PER_DAY = 86_400_000;
/** Day 0 of the serial count for dates from 1900-03-01 on (Excel's 1900 system, with its fictitious 1900-02-29). */
const EPOCH_DAYS = daysFromCivil(1899, 12, 30);
const MARCH_1900 = daysFromCivil(1900, 3, 1);
const FIRST_DAY = daysFromCivil(1900, 1, 1);
const LAST_DAY = daysFromCivil(9999, 12, 31);

/** Parse a data-API timestamp into wall-clock parts in `timezone`; null when it is not a valid timestamp. */
export function parseTimestamp(text: string, timezone: string): WallClock | null {
  const m = TIMESTAMP.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4] ?? 0);
  const minute = Number(m[5] ?? 0);
  const second = Number(m[6] ?? 0);
  const fraction = m[7] === undefined ? 0 : Number(`0.${m[7]}`);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const wall: WallClock = { year, month, day, seconds: hour * 3600 + minute * 60 + second + fraction };
  const zone = m[8];
  return zone === undefined ? wall : shiftToZone(wall, zone, timezone);
}

/**
 * Excel serial number of a wall-clock time: days since 1899-12-30 plus the fraction of the day,
 * minus one before 1900-03-01 (Excel counts a 1900-02-29 that never was). Null outside
 * 1900-01-01 … 9999-12-31, the dates Excel can show.
 */
export function excelSerial(t: WallClock): number | null {
  const days = daysFromCivil(t.year, t.month, t.day);
  if (days < FIRST_DAY || days > LAST_DAY) return null;
  const serialDay = days - EPOCH_DAYS - (days < MARCH_1900 ? 1 : 0);
  return serialDay + t.seconds / 86_400;
}

/** The instant `wall` at offset `zone` ("Z", "+02:00", "-0530"), as wall-clock time in the IANA `timezone`. */
function shiftToZone(wall: WallClock, zone: string, timezone: string): WallClock | null {
  const offsetMinutes = zone === "Z" ? 0 : parseOffset(zone);
  const ms = Math.round(wall.seconds * 1000);
  const utc = daysFromCivil(wall.year, wall.month, wall.day) * MS_PER_DAY + ms - offsetMinutes * 60_000;
  const format = wallClockFormat(timezone);
  const parts: Record<string, number> = {};
  for (const p of format.formatToParts(new Date(utc))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const subSecond = (((utc % 1000) + 1000) % 1000) / 1000 + (wall.seconds * 1000 - ms) / 1000;
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    seconds: parts.hour! * 3600 + parts.minute! * 60 + parts.second! + subSecond,
  };
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** One formatter per timezone (building one costs far more than using it). */
function wallClockFormat(timezone: string): Intl.DateTimeFormat {
  let format = formats.get(timezone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone: timezone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      throw new RangeError(`toCell: unknown timezone ${JSON.stringify(timezone)}`);
    }
    formats.set(timezone, format);
  }
  return format;
}

function parseOffset(zone: string): number {
  const sign = zone.startsWith("-") ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4)));
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil; valid for any year). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
