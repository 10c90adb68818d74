//! A parser for the TSDL subset real traces use: `typealias`, `typedef`, `trace`,
//! `env`, `clock`, `stream`, `event` (other blocks such as `callsite` are skipped),
//! and the types `integer`, `floating_point`, `string`, `struct`, `enum`, `variant`,
//! with static arrays and sequences, named `struct`/`enum`/`variant` declarations
//! and multi-word alias names (`unsigned long`).

use std::collections::HashMap;
use std::sync::Arc;

use super::lexer::{lex, Tok, Token};
use super::types::{ByteOrder, Clock, EventClass, IntType, Len, Metadata, StreamClass, Type};
use super::CtfError;

/// An attribute value.
#[derive(Clone, Debug)]
enum AttrVal {
    Int(i128),
    Str(String),
    /// Identifiers joined by dots (`le`, `clock.monotonic.value`).
    Path(String),
    Type(Arc<Type>),
}

impl AttrVal {
    fn int(&self) -> Option<i128> {
        match self {
            AttrVal::Int(v) => Some(*v),
            AttrVal::Path(p) if p == "true" || p == "TRUE" => Some(1),
            AttrVal::Path(p) if p == "false" || p == "FALSE" => Some(0),
            _ => None,
        }
    }

    fn text(&self) -> String {
        match self {
            AttrVal::Int(v) => v.to_string(),
            AttrVal::Str(s) | AttrVal::Path(s) => s.clone(),
            AttrVal::Type(_) => String::new(),
        }
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    aliases: HashMap<String, Arc<Type>>,
    structs: HashMap<String, Arc<Type>>,
    enums: HashMap<String, Arc<Type>>,
    variants: HashMap<String, Arc<Type>>,
    depth: u32,
}

const MAX_DEPTH: u32 = 64;

/// Parses metadata text.
pub fn parse_metadata(text: &str) -> Result<Metadata, CtfError> {
    let mut p = Parser {
        toks: lex(text)?,
        pos: 0,
        aliases: HashMap::new(),
        structs: HashMap::new(),
        enums: HashMap::new(),
        variants: HashMap::new(),
        depth: 0,
    };
    let mut m = Metadata {
        byte_order: ByteOrder::Le,
        uuid: None,
        packet_header: None,
        env: Vec::new(),
        clocks: Vec::new(),
        streams: Vec::new(),
        events: Vec::new(),
    };
    while p.pos < p.toks.len() {
        let Some(Tok::Ident(kw)) = p.peek().cloned() else {
            if p.eat(";") {
                continue;
            }
            return Err(p.err("expected a declaration"));
        };
        match kw.as_str() {
            "trace" | "env" | "clock" | "stream" | "event"
                if p.peek_at(1) == Some(&Tok::Punct("{")) =>
            {
                p.pos += 1;
                let attrs = p.attr_block()?;
                p.eat(";");
                let get = |k: &str| attrs.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v);
                let ty = |k: &str| match get(k) {
                    Some(AttrVal::Type(t)) => Some(t.clone()),
                    _ => None,
                };
                let int = |k: &str| get(k).and_then(AttrVal::int);
                match kw.as_str() {
                    "trace" => {
                        if let Some(AttrVal::Path(o)) = get("byte_order") {
                            m.byte_order = if o == "be" || o == "network" {
                                ByteOrder::Be
                            } else {
                                ByteOrder::Le
                            };
                        }
                        m.uuid = get("uuid").map(AttrVal::text);
                        m.packet_header = ty("packet.header");
                    }
                    "env" => m.env = attrs.iter().map(|(k, v)| (k.clone(), v.text())).collect(),
                    "clock" => m.clocks.push(Clock {
                        name: get("name").map(AttrVal::text).unwrap_or_default(),
                        freq: int("freq")
                            .and_then(|f| u64::try_from(f).ok())
                            .filter(|&f| f > 0)
                            .unwrap_or(1_000_000_000),
                        offset_s: int("offset_s")
                            .and_then(|v| i64::try_from(v).ok())
                            .unwrap_or(0),
                        offset: int("offset")
                            .and_then(|v| i64::try_from(v).ok())
                            .unwrap_or(0),
                    }),
                    "stream" => m.streams.push(StreamClass {
                        id: int("id").and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
                        packet_context: ty("packet.context"),
                        event_header: ty("event.header"),
                        event_context: ty("event.context"),
                    }),
                    _ => m.events.push(EventClass {
                        id: int("id").and_then(|v| u64::try_from(v).ok()).unwrap_or(0),
                        name: get("name").map(AttrVal::text).unwrap_or_default(),
                        stream_id: int("stream_id")
                            .and_then(|v| u64::try_from(v).ok())
                            .unwrap_or(0),
                        context: ty("context"),
                        fields: ty("fields"),
                    }),
                }
            }
            "typealias" | "typedef" => p.alias()?,
            "struct" | "enum" | "variant" => {
                p.type_spec()?;
                p.expect(";")?;
            }
            _ if p.peek_at(1) == Some(&Tok::Punct("{")) => {
                // An unknown block (`callsite`): skip it.
                p.pos += 1;
                p.attr_block()?;
                p.eat(";");
            }
            _ => return Err(p.err(&format!("unexpected `{kw}` at top level"))),
        }
    }
    Ok(m)
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }

    fn err(&self, message: &str) -> CtfError {
        let line = self
            .toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.line);
        let found = match self.peek() {
            Some(Tok::Ident(s)) => format!(" (found `{s}`)"),
            Some(Tok::Punct(s)) => format!(" (found `{s}`)"),
            Some(Tok::Int(v)) => format!(" (found {v})"),
            Some(Tok::Str(s)) => format!(" (found \"{s}\")"),
            None => " (found the end)".into(),
        };
        CtfError::Metadata {
            line,
            message: format!("{message}{found}"),
        }
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), CtfError> {
        if self.eat(p) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{p}`")))
        }
    }

    fn ident(&mut self) -> Result<String, CtfError> {
        match self.peek().cloned() {
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err("expected a name")),
        }
    }

    /// `{ key = value; key := type; ... }` (keys may be dotted).
    fn attr_block(&mut self) -> Result<Vec<(String, AttrVal)>, CtfError> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.eat(";") {
                continue;
            }
            if matches!(self.peek(), Some(Tok::Ident(k)) if k == "typealias" || k == "typedef") {
                self.alias()?;
                continue;
            }
            let mut key = self.ident()?;
            while self.eat(".") {
                key.push('.');
                key.push_str(&self.ident()?);
            }
            let v = if self.eat(":=") {
                AttrVal::Type(self.type_spec()?)
            } else {
                self.expect("=")?;
                self.value()?
            };
            self.expect(";")?;
            out.push((key, v));
        }
        Ok(out)
    }

    fn value(&mut self) -> Result<AttrVal, CtfError> {
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(AttrVal::Int(v))
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Ok(AttrVal::Str(s))
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                let mut path = s;
                while self.eat(".") {
                    path.push('.');
                    path.push_str(&self.ident()?);
                }
                Ok(AttrVal::Path(path))
            }
            _ => Err(self.err("expected a value")),
        }
    }

    /// `typealias TYPE := NAME WORDS;` or `typedef TYPE NAME;`.
    fn alias(&mut self) -> Result<(), CtfError> {
        let kw = self.ident()?;
        let ty = self.type_spec()?;
        let mut words = Vec::new();
        if kw == "typealias" {
            self.expect(":=")?;
        }
        while let Some(Tok::Ident(w)) = self.peek().cloned() {
            self.pos += 1;
            words.push(w);
        }
        let ty = self.dims(ty)?;
        self.expect(";")?;
        if words.is_empty() {
            return Err(self.err("expected the alias name"));
        }
        self.aliases.insert(words.join(" "), ty);
        Ok(())
    }

    /// A type specifier.
    fn type_spec(&mut self) -> Result<Arc<Type>, CtfError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("types nested too deep"));
        }
        let r = self.type_spec_inner();
        self.depth -= 1;
        r
    }

    fn type_spec_inner(&mut self) -> Result<Arc<Type>, CtfError> {
        let kw = self.ident()?;
        match kw.as_str() {
            "integer" => Ok(Arc::new(Type::Int(self.int_attrs()?))),
            "floating_point" => {
                let attrs = self.attr_block()?;
                let get = |k: &str| {
                    attrs
                        .iter()
                        .find(|(n, _)| n == k)
                        .and_then(|(_, v)| v.int())
                };
                let size = (get("exp_dig").unwrap_or(8) + get("mant_dig").unwrap_or(24)) as u32;
                let byte_order = byte_order_of(&attrs);
                Ok(Arc::new(Type::Float {
                    size,
                    align: get("align").unwrap_or(8) as u32,
                    byte_order,
                }))
            }
            "string" => {
                if matches!(self.peek(), Some(Tok::Punct("{"))) {
                    self.attr_block()?;
                }
                Ok(Arc::new(Type::Str))
            }
            "struct" => {
                let name = self.opt_name();
                let ty = if matches!(self.peek(), Some(Tok::Punct("{"))) {
                    let fields = self.fields()?;
                    let mut align = 1;
                    if matches!(self.peek(), Some(Tok::Ident(a)) if a == "align") {
                        self.pos += 1;
                        self.expect("(")?;
                        align = self.int()? as u32;
                        self.expect(")")?;
                    }
                    let t = Arc::new(Type::Struct { fields, align });
                    if let Some(n) = name {
                        self.structs.insert(n, t.clone());
                    }
                    t
                } else {
                    let n = name.ok_or_else(|| self.err("expected a struct name or body"))?;
                    self.structs
                        .get(&n)
                        .cloned()
                        .ok_or_else(|| self.err(&format!("unknown struct `{n}`")))?
                };
                Ok(ty)
            }
            "enum" => {
                let name = self.opt_name();
                let int = if self.eat(":") {
                    match &*self.type_spec()? {
                        Type::Int(i) => i.clone(),
                        _ => return Err(self.err("an enum's container must be an integer")),
                    }
                } else if matches!(self.peek(), Some(Tok::Punct("{"))) {
                    // No container: `int` (32-bit signed).
                    match self.aliases.get("int").map(|t| (**t).clone()) {
                        Some(Type::Int(i)) => i,
                        _ => IntType {
                            size: 32,
                            align: 8,
                            signed: true,
                            byte_order: None,
                            base: 10,
                            text: false,
                            clock: None,
                        },
                    }
                } else {
                    let n = name.ok_or_else(|| self.err("expected an enum name or body"))?;
                    return self
                        .enums
                        .get(&n)
                        .cloned()
                        .ok_or_else(|| self.err(&format!("unknown enum `{n}`")));
                };
                let entries = self.enum_entries()?;
                let t = Arc::new(Type::Enum { int, entries });
                if let Some(n) = name {
                    self.enums.insert(n, t.clone());
                }
                Ok(t)
            }
            "variant" => {
                let name = self.opt_name();
                let tag = if self.eat("<") {
                    let p = self.path()?;
                    self.expect(">")?;
                    Some(p)
                } else {
                    None
                };
                if matches!(self.peek(), Some(Tok::Punct("{"))) {
                    let options = self.fields()?;
                    let t = Type::Variant {
                        tag: tag.clone().unwrap_or_default(),
                        options,
                    };
                    if let Some(n) = name {
                        self.variants.insert(n, Arc::new(t.clone()));
                    }
                    Ok(Arc::new(t))
                } else {
                    let n = name.ok_or_else(|| self.err("expected a variant name or body"))?;
                    let base = self
                        .variants
                        .get(&n)
                        .cloned()
                        .ok_or_else(|| self.err(&format!("unknown variant `{n}`")))?;
                    match (&*base, tag) {
                        (Type::Variant { options, .. }, Some(tag)) => Ok(Arc::new(Type::Variant {
                            tag,
                            options: options.clone(),
                        })),
                        _ => Ok(base),
                    }
                }
            }
            _ => {
                // An alias name, possibly several words; the longest known prefix wins,
                // leaving the field name to the caller.
                let mut words = vec![kw];
                let mut best = self.aliases.get(&words[0]).cloned().map(|t| (t, self.pos));
                let mut i = self.pos;
                while let Some(Tok::Ident(w)) = self.toks.get(i).map(|t| &t.tok) {
                    words.push(w.clone());
                    i += 1;
                    if let Some(t) = self.aliases.get(&words.join(" ")) {
                        best = Some((t.clone(), i));
                    }
                }
                match best {
                    Some((t, end)) => {
                        self.pos = end;
                        Ok(t)
                    }
                    None => {
                        self.pos -= 1;
                        Err(self.err("unknown type"))
                    }
                }
            }
        }
    }

    fn opt_name(&mut self) -> Option<String> {
        match self.peek().cloned() {
            Some(Tok::Ident(n)) if n != "align" => {
                self.pos += 1;
                Some(n)
            }
            _ => None,
        }
    }

    fn int(&mut self) -> Result<i128, CtfError> {
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.pos += 1;
                Ok(v)
            }
            _ => Err(self.err("expected an integer")),
        }
    }

    fn path(&mut self) -> Result<Vec<String>, CtfError> {
        let mut p = vec![self.ident()?];
        while self.eat(".") {
            p.push(self.ident()?);
        }
        Ok(p)
    }

    fn int_attrs(&mut self) -> Result<IntType, CtfError> {
        let attrs = self.attr_block()?;
        let get = |k: &str| attrs.iter().find(|(n, _)| n == k).map(|(_, v)| v);
        let size = get("size")
            .and_then(AttrVal::int)
            .filter(|s| (1..=64).contains(s));
        let size = size.ok_or_else(|| self.err("integer size must be 1 to 64"))? as u32;
        let align = get("align")
            .and_then(AttrVal::int)
            .unwrap_or(if size.is_multiple_of(8) { 8 } else { 1 });
        let base = match get("base") {
            Some(AttrVal::Int(b)) => *b as u32,
            Some(AttrVal::Path(p)) => match p.as_str() {
                "x" | "X" | "hex" | "p" => 16,
                "o" | "oct" => 8,
                "b" | "bin" => 2,
                _ => 10,
            },
            _ => 10,
        };
        let text = matches!(get("encoding"), Some(AttrVal::Path(e)) if e == "UTF8" || e == "ASCII" || e == "utf8");
        let clock = match get("map") {
            Some(AttrVal::Path(p)) => p
                .strip_prefix("clock.")
                .map(|c| c.trim_end_matches(".value").to_string()),
            _ => None,
        };
        Ok(IntType {
            size,
            align: u32::try_from(align).unwrap_or(8).clamp(1, 1 << 16),
            signed: get("signed").and_then(AttrVal::int).unwrap_or(0) != 0,
            byte_order: byte_order_of(&attrs),
            base,
            text,
            clock,
        })
    }

    fn enum_entries(&mut self) -> Result<Vec<(String, i128, i128)>, CtfError> {
        self.expect("{")?;
        let mut out = Vec::new();
        let mut next = 0i128;
        while !self.eat("}") {
            let name = match self.peek().cloned() {
                Some(Tok::Ident(s)) | Some(Tok::Str(s)) => {
                    self.pos += 1;
                    s
                }
                _ => return Err(self.err("expected an enum label")),
            };
            let (lo, hi) = if self.eat("=") {
                let lo = self.int()?;
                let hi = if self.eat("...") { self.int()? } else { lo };
                (lo, hi)
            } else {
                (next, next)
            };
            next = hi + 1;
            out.push((name, lo, hi));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(out)
    }

    /// `{ TYPE name[dims]; ... }` of a struct or variant.
    fn fields(&mut self) -> Result<Vec<(String, Arc<Type>)>, CtfError> {
        self.expect("{")?;
        let mut out = Vec::new();
        while !self.eat("}") {
            if self.eat(";") {
                continue;
            }
            if matches!(self.peek(), Some(Tok::Ident(k)) if k == "typealias" || k == "typedef") {
                self.alias()?;
                continue;
            }
            let ty = self.type_spec()?;
            loop {
                let name = self.ident()?;
                let t = self.dims(ty.clone())?;
                out.push((name, t));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
        }
        Ok(out)
    }

    /// `[N]` or `[path]` suffixes; the first one is the outermost.
    fn dims(&mut self, ty: Arc<Type>) -> Result<Arc<Type>, CtfError> {
        let mut lens = Vec::new();
        while self.eat("[") {
            let len = match self.peek() {
                Some(Tok::Int(_)) => Len::Fixed(
                    u64::try_from(self.int()?).map_err(|_| self.err("bad array length"))?,
                ),
                _ => Len::Field(self.path()?),
            };
            self.expect("]")?;
            lens.push(len);
        }
        Ok(lens
            .into_iter()
            .rev()
            .fold(ty, |elem, len| Arc::new(Type::Array { elem, len })))
    }
}

fn byte_order_of(attrs: &[(String, AttrVal)]) -> Option<ByteOrder> {
    match attrs
        .iter()
        .find(|(n, _)| n == "byte_order")
        .map(|(_, v)| v)
    {
        Some(AttrVal::Path(o)) if o == "be" || o == "network" => Some(ByteOrder::Be),
        Some(AttrVal::Path(o)) if o == "le" => Some(ByteOrder::Le),
        _ => None,
    }
}
