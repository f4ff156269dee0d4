//! Roman numerals and letter counters, as documents number lists, sections and pages: Word's
//! `upperRoman`/`lowerLetter` numbering and PDF page labels (`/S /r`, `/S /a`) write them,
//! and page furniture (`xii`) is read back with them.

use std::sync::OnceLock;

use regex::Regex;

/// Lower-case Roman numeral for 1–3999; other values as digits.
pub(crate) fn roman(n: u32) -> String {
    if n == 0 || n > 3999 {
        return n.to_string();
    }
    const TABLE: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut n = n;
    let mut out = String::new();
    for (value, digits) in TABLE {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

/// Letters: a … z, then aa … zz, aaa … (Word and PDF labels count alike); 0 has none and is
/// written as a digit.
pub(crate) fn letters(n: u32) -> String {
    if n == 0 {
        return "0".into();
    }
    let letter = char::from(b'a' + ((n - 1) % 26) as u8);
    let count = ((n - 1) / 26 + 1).min(64) as usize;
    std::iter::repeat_n(letter, count).collect()
}

/// Whether `w` (lower case) is a well-formed Roman numeral.
pub(crate) fn is_roman(w: &str) -> bool {
    static ROMAN: OnceLock<Regex> = OnceLock::new();
    let re = ROMAN
        .get_or_init(|| Regex::new(r"^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$").unwrap());
    !w.is_empty() && re.is_match(w)
}

/// The value of a well-formed lower-case Roman numeral.
pub(crate) fn roman_value(w: &str) -> Option<u32> {
    if !is_roman(w) {
        return None;
    }
    let digit = |c: char| match c {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        'l' => 50,
        'c' => 100,
        'd' => 500,
        _ => 1000,
    };
    let values: Vec<u32> = w.chars().map(digit).collect();
    let mut total = 0u32;
    for (i, v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|next| next > v) {
            total = total.wrapping_sub(*v);
        } else {
            total = total.wrapping_add(*v);
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerals_and_letters() {
        assert_eq!(roman(1), "i");
        assert_eq!(roman(12), "xii");
        assert_eq!(roman(1994), "mcmxciv");
        assert_eq!(roman(0), "0");
        assert_eq!(roman(4000), "4000");
        assert_eq!(letters(1), "a");
        assert_eq!(letters(27), "aa");
        assert_eq!(letters(0), "0");
        assert!(is_roman("xii") && !is_roman("civil") && !is_roman(""));
        assert_eq!(roman_value("xiv"), Some(14));
        assert_eq!(roman_value("mcmxciv"), Some(1994));
    }
}
