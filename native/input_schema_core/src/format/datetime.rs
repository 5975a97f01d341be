//! `date-time`, `date` and `time` (RFC 3339, section 5.6) and `duration`
//! (RFC 3339, appendix A).
//!
//! ```text
//! date-time    = full-date "T" full-time
//! full-date    = date-fullyear "-" date-month "-" date-mday      ; 4, 2, 2 DIGIT
//! full-time    = partial-time time-offset
//! partial-time = time-hour ":" time-minute ":" time-second [time-secfrac]
//! time-secfrac = "." 1*DIGIT
//! time-offset  = "Z" / ("+" / "-") time-hour ":" time-minute
//! ```
//!
//! Month lengths follow the Gregorian calendar (February 29 in leap years).
//! `T` and `Z` are case-insensitive (RFC 3339 says so in 5.6, as ABNF makes
//! every quoted letter). A second of 60 is a leap second, valid only where
//! the time, taken back to UTC through its offset, is 23:59:60; the date of
//! a leap second is not checked against the published list (the format is
//! syntax, and the list grows). DIGIT is ASCII only.

use super::{step, steps};

/// `date-time`: a full date, `T`, a full time.
pub(super) fn date_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    match (bytes.get(..10), bytes.get(10), bytes.get(11..)) {
        (Some(date), Some(b'T' | b't'), Some(time)) => full_date(date) && full_time(time),
        _ => false,
    }
}

/// `date`: RFC 3339 `full-date`.
pub(super) fn date(text: &str) -> bool {
    full_date(text.as_bytes())
}

/// `time`: RFC 3339 `full-time` (the offset is required).
pub(super) fn time(text: &str) -> bool {
    full_time(text.as_bytes())
}

/// The value of two ASCII digits.
fn two_digits(high: u8, low: u8) -> Option<u32> {
    (high.is_ascii_digit() && low.is_ascii_digit())
        .then(|| u32::from(high - b'0') * 10 + u32::from(low - b'0'))
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DD`, a day that exists.
fn full_date(bytes: &[u8]) -> bool {
    let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *bytes else {
        return false;
    };
    let (Some(century), Some(year), Some(month), Some(day)) = (
        two_digits(y0, y1),
        two_digits(y2, y3),
        two_digits(m0, m1),
        two_digits(d0, d1),
    ) else {
        return false;
    };
    let year = century * 100 + year;
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

/// `HH:MM:SS[.frac]` then `Z` or `+HH:MM` / `-HH:MM`.
fn full_time(bytes: &[u8]) -> bool {
    let [h0, h1, b':', m0, m1, b':', s0, s1, rest @ ..] = bytes else {
        return false;
    };
    let (Some(hour), Some(minute), Some(second)) =
        (two_digits(*h0, *h1), two_digits(*m0, *m1), two_digits(*s0, *s1))
    else {
        return false;
    };
    let mut rest = rest;
    if let [b'.', fraction @ ..] = rest {
        let digits = fraction.iter().take_while(|b| b.is_ascii_digit()).count();
        steps(digits);
        if digits == 0 {
            return false;
        }
        rest = fraction.get(digits..).unwrap_or_default();
    }
    // Minutes to add to the local time to reach UTC.
    let to_utc: i64 = match *rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), oh0, oh1, b':', om0, om1] => {
            let (Some(offset_hour), Some(offset_minute)) = (two_digits(oh0, oh1), two_digits(om0, om1))
            else {
                return false;
            };
            if offset_hour > 23 || offset_minute > 59 {
                return false;
            }
            let offset = i64::from(offset_hour * 60 + offset_minute);
            if sign == b'+' {
                -offset
            } else {
                offset
            }
        }
        _ => return false,
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) + to_utc).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// `duration`, RFC 3339 appendix A:
///
/// ```text
/// duration   = "P" (dur-date / dur-time / dur-week)
/// dur-date   = (dur-day / dur-month / dur-year) [dur-time]
/// dur-time   = "T" (dur-hour / dur-minute / dur-second)
/// dur-year   = 1*DIGIT "Y" [dur-month]     dur-hour   = 1*DIGIT "H" [dur-minute]
/// dur-month  = 1*DIGIT "M" [dur-day]       dur-minute = 1*DIGIT "M" [dur-second]
/// dur-day    = 1*DIGIT "D"                 dur-second = 1*DIGIT "S"
/// dur-week   = 1*DIGIT "W"
/// ```
///
/// So units come in order and without gaps (`P1Y2D` and `PT1H2S` are not
/// durations), weeks stand alone, numbers have any number of digits and no
/// fraction, and the designators are case-insensitive (ABNF strings are).
pub(super) fn duration(text: &str) -> bool {
    let Some((b'P' | b'p', mut rest)) = text.as_bytes().split_first() else {
        return false;
    };
    if !matches!(rest.first(), Some(b'T' | b't')) {
        // dur-date or dur-week: a first element, then each next one the
        // unit right after the previous.
        let Some((first, after)) = element(rest) else {
            return false;
        };
        rest = after;
        match first {
            b'W' => return rest.is_empty(),
            b'Y' | b'M' | b'D' => {}
            _ => return false,
        }
        let mut last = first;
        while !rest.is_empty() && !matches!(rest.first(), Some(b'T' | b't')) {
            step();
            let Some((unit, after)) = element(rest) else {
                return false;
            };
            let follows = matches!((last, unit), (b'Y', b'M') | (b'M', b'D'));
            if !follows {
                return false;
            }
            last = unit;
            rest = after;
        }
        if rest.is_empty() {
            return true;
        }
    }
    // dur-time: "T", then H, M, S in order without gaps, at least one.
    let Some(mut rest) = rest.get(1..) else {
        return false;
    };
    let mut last = None;
    while !rest.is_empty() {
        step();
        let Some((unit, after)) = element(rest) else {
            return false;
        };
        let follows = match (last, unit) {
            (None, b'H' | b'M' | b'S') => true,
            (Some(previous), _) => matches!((previous, unit), (b'H', b'M') | (b'M', b'S')),
            (None, _) => false,
        };
        if !follows {
            return false;
        }
        last = Some(unit);
        rest = after;
    }
    last.is_some()
}

/// `1*DIGIT` and a unit letter (upper-cased), and what follows.
fn element(bytes: &[u8]) -> Option<(u8, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    steps(digits);
    if digits == 0 {
        return None;
    }
    let unit = bytes.get(digits)?.to_ascii_uppercase();
    unit.is_ascii_uppercase()
        .then(|| (unit, bytes.get(digits + 1..).unwrap_or_default()))
}

#[cfg(test)]
#[allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for valid in [
            "2020-02-29",
            "2000-02-29",
            "0000-01-01",
            "9999-12-31",
            "2021-04-30",
            "1963-06-19",
        ] {
            assert!(date(valid), "{valid}");
        }
        for invalid in [
            "2021-02-29",
            "1900-02-29",
            "2020-02-30",
            "2020-04-31",
            "2020-00-10",
            "2020-13-01",
            "2020-01-00",
            "2020-1-01",
            "20200101",
            "2020-01-01T",
            "2020-01-01 ",
            " 2020-01-01",
            "2020-01-1\u{09ea}",
            "2020/01/01",
            "+2020-01-01",
            "",
        ] {
            assert!(!date(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn times() {
        for valid in [
            "00:00:00Z",
            "23:59:59z",
            "23:59:60Z",
            "23:59:60.999+00:00",
            "15:59:60-08:00",
            "00:29:60-23:30",
            "01:29:60+01:30",
            "12:00:00.000000000000000000001+23:59",
            "12:00:00-00:00",
        ] {
            assert!(time(valid), "{valid}");
        }
        for invalid in [
            "23:59:60+01:00",
            "22:59:60Z",
            "23:58:60Z",
            "00:00:61Z",
            "24:00:00Z",
            "00:60:00Z",
            "12:00:00",
            "12:00:00.Z",
            "12:00:00.5",
            "12:00:00+24:00",
            "12:00:00+00:60",
            "12:00:00+0000",
            "12:00:00+00",
            "12:00:00Z+00:00",
            "12:00:00ZZ",
            "12:00:00 Z",
            "12:00Z",
            "1:00:00Z",
            "12:00:00,5Z",
            "",
        ] {
            assert!(!time(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn date_times() {
        for valid in [
            "1963-06-19T08:30:06.283185Z",
            "1963-06-19t08:30:06z",
            "1998-12-31T23:59:60Z",
            "1998-12-31T15:59:60.123-08:00",
            "2016-12-31T23:59:60+00:00",
            "2020-02-29T00:00:00+14:00",
        ] {
            assert!(date_time(valid), "{valid}");
        }
        for invalid in [
            "1963-06-19 08:30:06Z",
            "1963-06-19T08:30:06",
            "1963-06-19",
            "1963-06-19T",
            "1990-02-31T15:59:59.123-08:00",
            "1998-12-31T23:59:61Z",
            "1963-06-19T08:30:06.28123+01:00Z",
            "1963-06-19TT08:30:06Z",
            "2013-350T01:01:01",
            "",
        ] {
            assert!(!date_time(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn durations() {
        for valid in [
            "P4DT12H30M5S",
            "P4Y",
            "P1Y2M",
            "P1Y2M3D",
            "P1M2D",
            "P0D",
            "PT0S",
            "PT1H2M",
            "PT1M2S",
            "PT36H",
            "P2W",
            "P01D",
            "p1y2m3dt4h5m6s",
            "P1Y2M3DT4H5M6S",
            "P99999999999999999999999999D",
        ] {
            assert!(duration(valid), "{valid}");
        }
        for invalid in [
            "",
            "P",
            "PT",
            "P1YT",
            "PT1D",
            "P2D1Y",
            "P1D2H",
            "P2S",
            "P1Y2D",
            "PT1H2S",
            "P1Y2W",
            "P1WT1H",
            "P1W2D",
            "P1",
            "PT1",
            "P1.5D",
            "PT0,5S",
            "-P1D",
            "P-1D",
            "P1D ",
            " P1D",
            "P1DT",
            "P1D2T3H",
            "P1e2D",
            "P1Y1Y",
            "PT1S1S",
            "P\u{09e8}Y",
            "1D",
        ] {
            assert!(!duration(invalid), "{invalid:?}");
        }
    }
}
