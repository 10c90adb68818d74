//! A small compact-JSON writer: responses are written straight into one string,
//! columns as arrays, without building a value tree (a track answer can hold tens of
//! thousands of numbers, written in well under a millisecond this way).

use std::fmt::{Display, Write};

/// A JSON object being written.
pub struct Obj {
    buf: String,
    first: bool,
}

/// Appends `s` as a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A float as JSON: `null` when not finite (JSON has no NaN or infinity).
pub fn float(out: &mut String, v: f64) {
    if v.is_finite() {
        let _ = write!(out, "{v}");
    } else {
        out.push_str("null");
    }
}

impl Default for Obj {
    fn default() -> Self {
        Obj::new()
    }
}

impl Obj {
    pub fn new() -> Obj {
        Obj {
            buf: String::from("{"),
            first: true,
        }
    }

    /// Starts a field and returns the buffer to write its value into.
    pub fn key(&mut self, k: &str) -> &mut String {
        if !self.first {
            self.buf.push(',');
        }
        self.first = false;
        string(&mut self.buf, k);
        self.buf.push(':');
        &mut self.buf
    }

    /// A value already written as JSON text.
    pub fn raw(&mut self, k: &str, json: &str) -> &mut Self {
        self.key(k).push_str(json);
        self
    }

    pub fn num(&mut self, k: &str, v: impl Display) -> &mut Self {
        let _ = write!(self.key(k), "{v}");
        self
    }

    pub fn opt_num<T: Display>(&mut self, k: &str, v: Option<T>) -> &mut Self {
        match v {
            Some(v) => self.num(k, v),
            None => self.raw(k, "null"),
        }
    }

    pub fn float(&mut self, k: &str, v: f64) -> &mut Self {
        float(self.key(k), v);
        self
    }

    pub fn bool(&mut self, k: &str, v: bool) -> &mut Self {
        self.raw(k, if v { "true" } else { "false" })
    }

    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        string(self.key(k), v);
        self
    }

    /// A string, or `null` when empty (absent in the model).
    pub fn opt_str(&mut self, k: &str, v: &str) -> &mut Self {
        if v.is_empty() {
            self.raw(k, "null")
        } else {
            self.str(k, v)
        }
    }

    pub fn nums<T: Display>(&mut self, k: &str, it: impl IntoIterator<Item = T>) -> &mut Self {
        let out = self.key(k);
        out.push('[');
        for (i, v) in it.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{v}");
        }
        out.push(']');
        self
    }

    pub fn floats(&mut self, k: &str, it: impl IntoIterator<Item = f64>) -> &mut Self {
        let out = self.key(k);
        out.push('[');
        for (i, v) in it.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            float(out, v);
        }
        out.push(']');
        self
    }

    pub fn strs<'a>(&mut self, k: &str, it: impl IntoIterator<Item = &'a str>) -> &mut Self {
        let out = self.key(k);
        out.push('[');
        for (i, v) in it.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            string(out, v);
        }
        out.push(']');
        self
    }

    /// An array of values each written as JSON text.
    pub fn raws(&mut self, k: &str, it: impl IntoIterator<Item = String>) -> &mut Self {
        let out = self.key(k);
        out.push('[');
        for (i, v) in it.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&v);
        }
        out.push(']');
        self
    }

    pub fn finish(&mut self) -> String {
        let mut s = std::mem::take(&mut self.buf);
        s.push('}');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_compact_valid_json() {
        let s = Obj::new()
            .str("s", "a\"b\\c\n\u{1}é")
            .nums("n", [1i64, -2])
            .floats("f", [0.5, f64::NAN])
            .opt_str("e", "")
            .bool("b", true)
            .raw("r", r#"{"x":[1]}"#)
            .finish();
        assert_eq!(
            s,
            r#"{"s":"a\"b\\c\n\u0001é","n":[1,-2],"f":[0.5,null],"e":null,"b":true,"r":{"x":[1]}}"#
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(v["s"], "a\"b\\c\n\u{1}é");
    }
}
