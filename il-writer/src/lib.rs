//! AMD IL text and binary token writer.
