//! Tokens of TSDL, the CTF 1.8 metadata language (C-like: identifiers, integer
//! literals, strings, punctuation, `/* */` and `//` comments).

use super::CtfError;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Int(i128),
    Str(String),
    /// `{ } ( ) [ ] ; : = , < > .` and the multi-character `:=`, `...`, `->`.
    Punct(&'static str),
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    /// 1-based line, for error messages.
    pub line: u32,
}

const PUNCTS: [&str; 16] = [
    ":=", "...", "->", "{", "}", "(", ")", "[", "]", ";", ":", "=", ",", "<", ">", ".",
];

fn int_literal(text: &str) -> Option<i128> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        i128::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

pub fn lex(text: &str) -> Result<Vec<Token>, CtfError> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() / 4);
    let mut i = 0;
    let mut line = 1u32;
    let err = |line: u32, m: String| CtfError::Metadata { line, message: m };
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => i += 1,
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = memchr::memmem::find(&b[i + 2..], b"*/")
                    .ok_or_else(|| err(line, "unterminated comment".into()))?;
                line += memchr::memchr_iter(b'\n', &b[i..i + 2 + end]).count() as u32;
                i += end + 4;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
            }
            b'"' => {
                let mut s = Vec::new();
                i += 1;
                loop {
                    match b.get(i) {
                        None => return Err(err(line, "unterminated string".into())),
                        Some(b'"') => break,
                        Some(b'\\') => {
                            let e = b.get(i + 1).copied().unwrap_or(b'\\');
                            s.push(match e {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'0' => 0,
                                o => o,
                            });
                            i += 2;
                        }
                        Some(&ch) => {
                            if ch == b'\n' {
                                line += 1;
                            }
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                i += 1;
                out.push(Token {
                    tok: Tok::Str(String::from_utf8_lossy(&s).into_owned()),
                    line,
                });
            }
            b'\'' => {
                // A character literal: its code as an integer.
                let v = b.get(i + 1).copied().unwrap_or(0);
                let end = memchr::memchr(b'\'', &b[(i + 2).min(b.len())..])
                    .ok_or_else(|| err(line, "unterminated character".into()))?;
                i += 3 + end;
                out.push(Token {
                    tok: Tok::Int(v as i128),
                    line,
                });
            }
            b'0'..=b'9' | b'-' | b'+'
                if c.is_ascii_digit() || b.get(i + 1).is_some_and(u8::is_ascii_digit) =>
            {
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                let t = &text[start..i];
                let (neg, digits) = match t.as_bytes()[0] {
                    b'-' => (true, &t[1..]),
                    b'+' => (false, &t[1..]),
                    _ => (false, t),
                };
                let v = int_literal(digits)
                    .ok_or_else(|| err(line, format!("bad integer literal `{t}`")))?;
                out.push(Token {
                    tok: Tok::Int(if neg { -v } else { v }),
                    line,
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(text[start..i].to_string()),
                    line,
                });
            }
            _ => {
                let p = PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes()));
                match p {
                    Some(p) => {
                        out.push(Token {
                            tok: Tok::Punct(p),
                            line,
                        });
                        i += p.len();
                    }
                    None => {
                        let ch = text[i..].chars().next().unwrap_or('?');
                        return Err(err(line, format!("unexpected character `{ch}`")));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let t: Vec<Tok> = lex("typealias integer { size = 0x20; } := u32; /* c\n */ x = -1 ... 077; s = \"a\\\"b\";\n// end")
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect();
        let id = |s: &str| Tok::Ident(s.into());
        let p = Tok::Punct;
        assert_eq!(
            t,
            vec![
                id("typealias"),
                id("integer"),
                p("{"),
                id("size"),
                p("="),
                Tok::Int(32),
                p(";"),
                p("}"),
                p(":="),
                id("u32"),
                p(";"),
                id("x"),
                p("="),
                Tok::Int(-1),
                p("..."),
                Tok::Int(63),
                p(";"),
                id("s"),
                p("="),
                Tok::Str("a\"b".into()),
                p(";"),
            ]
        );
        assert!(matches!(
            lex("a = \"open"),
            Err(CtfError::Metadata { line: 1, .. })
        ));
        assert!(matches!(
            lex("\n\n@"),
            Err(CtfError::Metadata { line: 3, .. })
        ));
    }
}
