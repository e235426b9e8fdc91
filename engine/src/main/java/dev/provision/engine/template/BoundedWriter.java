package dev.provision.engine.template;

import java.io.IOException;
import java.io.Writer;

/** Collects a render's output and refuses to hold more than its limit. Not thread-safe. */
final class BoundedWriter extends Writer {
    private final StringBuilder text = new StringBuilder();
    private final int limit;

    BoundedWriter(int limit) {
        this.limit = limit;
    }

    /** Thrown by a write that would pass the limit; an {@link IOException}, so FreeMarker lets it through. */
    static final class Full extends IOException {
        Full() {
            super("output limit reached");
        }
    }

    @Override
    public void write(char[] chars, int offset, int length) throws IOException {
        reserve(length);
        text.append(chars, offset, length);
    }

    @Override
    public void write(String s, int offset, int length) throws IOException {
        reserve(length);
        text.append(s, offset, offset + length);
    }

    @Override
    public void write(int c) throws IOException {
        reserve(1);
        text.append((char) c);
    }

    private void reserve(int length) throws Full {
        if (length > limit - text.length()) {
            throw new Full();
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
