//! Integers a browser would round: JavaScript numbers are doubles, exact only up to
//! 2^53, so an integer beyond that (a 64-bit id such as Chrome's `main_frame_id`
//! 14107898137686480567) is sent as a string of its digits, as written.

use tracescope_format::json::Value;

use super::json;

/// The largest integer a double holds exactly along with all smaller ones.
const SAFE: u64 = (1 << 53) - 1;

/// Whether the number text is an integer a double would not hold exactly.
pub fn too_big(number: &str) -> bool {
    let digits = number.strip_prefix('-').unwrap_or(number);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.parse::<u64>().map_or(true, |n| n > SAFE)
}

/// A JSON value as compact JSON, integers too big for a double as strings.
pub fn write(v: &Value<'_>, out: &mut String) {
    match v {
        Value::Number(n) if too_big(n) => json::string(out, n),
        Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(x, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, x)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json::string(out, k);
                out.push(':');
                write(x, out);
            }
            out.push('}');
        }
        other => other.write_compact(out),
    }
}

/// JSON text with its big integers as strings; text that is not JSON as a string.
pub fn exact(text: &str) -> String {
    let mut out = String::new();
    match Value::parse(text) {
        Ok(v) => write(&v, &mut out),
        Err(_) => json::string(&mut out, text),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_integers_become_strings_others_stay() {
        assert_eq!(
            exact(
                r#"{"id":14107898137686480567,"n":9007199254740991,"m":9007199254740992,"x":[-9007199254740993,1.5,2e3],"s":"t"}"#
            ),
            r#"{"id":"14107898137686480567","n":9007199254740991,"m":"9007199254740992","x":["-9007199254740993",1.5,2e3],"s":"t"}"#
        );
        assert_eq!(exact("not json {"), r#""not json {""#);
        assert!(too_big("99999999999999999999999"));
        assert!(!too_big("-12") && !too_big("1.0e30") && !too_big("-"));
    }
}
