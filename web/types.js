// Shapes of the server's answers (docs/api.md), for JSDoc type checking only.

/**
 * @typedef {{id: string, kind: 'slices'|'samples'|'async'|'counter'|'objects'|'screenshots', name: string,
 *   rows: number, min?: number, max?: number, instants?: number, source?: string}} Track
 * @typedef {{id: number, tid: number|string, name: string|null, label: string, tracks: Track[],
 *   sort_index?: number|null, main?: boolean, busy_ns?: number}} Thread
 * @typedef {{id: number, pid: number|string, name: string|null, label: string,
 *   sort_index: number|null, labels: string|null, frame_url: string|null,
 *   tracks: Track[], threads: Thread[]}} Process
 * @typedef {{kind: string, severity?: 'error'|'warning'|'info', count: number,
 *   offset: number|null, example: string|null, description?: string}} Diagnostic
 * @typedef {{ts: number[], name: string[], id: number[]}} GlobalInstants
 * @typedef {{name: string, format: string, bytes: number, events: number,
 *   start_ns: number, end_ns: number, display_time_unit: string|null,
 *   processes: Process[], global_instants: GlobalInstants,
 *   diagnostics: Diagnostic[], stats: Record<string, unknown>}} Summary
 * @typedef {{ts: number[], name: number[], id: number[], scope: string[]}} TileInstants
 * @typedef {{ts: number[], dur: number[], row: number[], id: number[], name: number[],
 *   count: number[], flags: number[], color: number[], strings: string[],
 *   instants?: TileInstants, snapshots?: TileSnapshots}} SliceTile
 * @typedef {{ts: number[], value: number[], min: number[], max: number[]}} CounterTile
 * @typedef {{id: number, name: string, ts: number, dur: number}} Ref
 * @typedef {{kind: 'slice'|'async', id: number, name: string, ts: number, thread: number|null,
 *   thread_label?: string|null, track?: string|null, row?: number}} FlowEnd
 * @typedef {{id: number, from: FlowEnd, to: FlowEnd, from_ts: number, to_ts: number}} Flow
 * @typedef {{id: number, name: string, cat: string|null, ts: number, dur: number,
 *   self: number|null, tts: number|null, tdur: number|null, depth: number, row?: number,
 *   did_not_finish: boolean, overlap: boolean, process: number|null, thread: number|null,
 *   track: string, args: unknown, args_text?: string|null, parents: Ref[], children: Ref[],
 *   children_total?: number, flows_in: Flow[], flows_out: Flow[], raw: string, async_id?: string|null,
 *   thread_label?: string|null, process_label?: string|null, tid?: number|string|null, pid?: number|string|null,
 *   ts_abs?: string, end_abs?: string, rel_ts?: number}} Details
 * @typedef {{from_ts: number[], to_ts: number[], from_track: string[], from_row: number[],
 *   to_track: string[], to_row: number[], from_id: number[], to_id: number[]}} FlowsAnswer
 * @typedef {{search: number, done: boolean, capped: boolean, total: number, offset: number,
 *   sort: 'time'|'duration', order: 'asc'|'desc', ts: number[], dur: number[], kind: string[], id: number[],
 *   track: string[], row: number[], name: string[], field: string[]}} SearchAnswer
 * @typedef {{ts: number[], row: number[], object: number[], index: number[]}} TileSnapshots
 * @typedef {'name'|'thread'|'category'} GroupBy
 * @typedef {{key: string[], thread: number[], count: number[], total: number[], self: number[],
 *   in_range: number[], thread_total: number[], avg: number[], min: number[], max: number[],
 *   did_not_finish: number[]}} RangeGroups
 * @typedef {{track: string[], name: string[], series?: string[], count: number[], min: number[], max: number[],
 *   avg: number[], first: number[], last: number[], delta: number[]}} RangeCounters
 * @typedef {{t0: number, t1: number, by: GroupBy, slices: number, groups: RangeGroups,
 *   counters: RangeCounters}} RangeAnswer
 * @typedef {{total: number, id: number[], ts: number[], dur: number[], track: string[],
 *   row: number[]}} RangeSlicesAnswer
 * @typedef {{parent: number[], depth: number[], name: number[], url: number[], line: number[],
 *   column: number[], self: number[], total: number[], self_samples: number[],
 *   total_samples: number[]}} ProfileNodes
 * @typedef {{samples: number, total_ns: number, view: 'top-down'|'bottom-up', truncated: boolean,
 *   nodes: ProfileNodes, strings: string[]}} ProfileAnswer
 * @typedef {{name: number[], url: number[], line: number[], column: number[], self: number[], total: number[],
 *   self_samples: number[], total_samples: number[]}} FunctionColumns
 * @typedef {{view: 'functions', source: string, samples: number, total_ns: number, count: number,
 *   truncated: boolean, functions: FunctionColumns, strings: string[]}} FunctionsAnswer
 * @typedef {{view: 'sandwich', source: string, callers: ProfileAnswer, callees: ProfileAnswer}} SandwichAnswer
 * @typedef {{ts: number, args: unknown}} Snapshot
 * @typedef {{id: number, name: string, cat: string|null, ts: number, scope: string, ph: string,
 *   process: number|null, thread: number|null, track: string|null, args: unknown, args_text?: string|null,
 *   raw: string}} InstantDetails
 * @typedef {{id: number, name: string, cat: string|null, object_id: string, process: number|null,
 *   start: number, end: number, alive_at_end: boolean, snapshots: Snapshot[],
 *   raw_snapshots: string[]}} ObjectAnswer
 */

export const FLAG_DID_NOT_FINISH = 1;
export const FLAG_OVERLAP = 2;
export const FLAG_HAS_FLOWS = 4;
