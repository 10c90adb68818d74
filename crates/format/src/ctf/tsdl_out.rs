//! The TSDL metadata text of a trace written by tracescope.

use std::fmt::Write;

use crate::etw::{Bitness, ChromeType, Opcode};

pub(crate) struct TraceLayout<'a> {
    pub uuid: [u8; 16],
    /// Clock offset in seconds: timestamps count ns from here.
    pub offset_s: i64,
    pub bits: Bitness,
    /// Opcodes that have events: one event class each, id = opcode.
    pub opcodes: &'a [bool; 256],
}

pub(crate) fn uuid_text(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

const PREAMBLE: &str = r#"/* CTF 1.8 */
/* Chrome trace events (Chrome's CTF layout) written by tracescope. Arguments named
 * "@..." carry the JSON event fields the Chrome model has no slot for. */

typealias integer { size = 8; align = 8; signed = false; } := uint8;
typealias integer { size = 32; align = 8; signed = false; } := uint32;
typealias integer { size = 64; align = 8; signed = false; } := uint64;
typealias integer { size = 64; align = 8; signed = true; } := int64;
typealias integer { size = 32; align = 8; signed = false; base = 16; } := xint32;
typealias integer { size = 64; align = 8; signed = false; base = 16; } := xint64;

"#;

/// The metadata text: trace, env, clock, stream and one event class per opcode.
pub(crate) fn metadata_text(l: &TraceLayout<'_>) -> String {
    let uuid = uuid_text(&l.uuid);
    let mut s = String::from(PREAMBLE);
    let _ = write!(
        s,
        r#"trace {{
	major = 1;
	minor = 8;
	uuid = "{uuid}";
	byte_order = le;
	packet.header := struct {{
		uint32 magic;
		uint8 uuid[16];
		uint32 stream_id;
	}};
}};

env {{
	domain = "chrome";
	tracer_name = "tracescope";
	tracer_major = 0;
	tracer_minor = 1;
}};

clock {{
	name = chrome;
	description = "Chrome trace time: ns from the clock offset";
	freq = 1000000000;
	precision = 0;
	offset_s = {offset_s};
	offset = 0;
	absolute = false;
}};

typealias integer {{ size = 64; align = 8; signed = false; map = clock.chrome.value; }} := uint64_clock;

stream {{
	id = 0;
	packet.context := struct {{
		uint64_clock timestamp_begin;
		uint64_clock timestamp_end;
		uint64 content_size;
		uint64 packet_size;
		uint64 events_discarded;
		uint64 packet_seq_num;
	}};
	event.header := struct {{
		uint8 id;
		uint64_clock timestamp;
	}};
	event.context := struct {{
		int64 pid;
		int64 tid;
		uint64 seq;
	}};
}};
"#,
        offset_s = l.offset_s
    );
    let addr = match l.bits {
        Bitness::B32 => "xint32",
        Bitness::B64 => "xint64",
    };
    for (op, _) in l.opcodes.iter().enumerate().filter(|(_, used)| **used) {
        let op = Opcode(op as u8);
        let Some(ty) = op.ty() else { continue };
        let _ = write!(
            s,
            "\nevent {{\n\tname = \"Chrome{}\";\n\tid = {};\n\tstream_id = 0;\n\tfields := struct {{\n\t\tstring name;\n\t\txint64 id;\n\t\tstring categories;\n",
            ChromeType::name(ty),
            op.0
        );
        if op.args() > 0 {
            let _ = writeln!(s, "\t\tstruct {{\n\t\t\tstring arg_name;\n\t\t\tstring arg_value;\n\t\t}} arguments[{}];", op.args());
        }
        if op.has_stack() {
            let _ = writeln!(s, "\t\tuint32 stack_size;\n\t\t{addr} stack[stack_size];");
        }
        s.push_str("\t};\n};\n");
    }
    s
}
