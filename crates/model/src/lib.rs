//! tracescope-model: the Trace, built from events into columnar tables.
