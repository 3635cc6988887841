//! AMD IL text parser and binary token decoder.
