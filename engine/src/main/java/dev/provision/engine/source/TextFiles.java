package dev.provision.engine.source;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Reads a user's text file (playbook, inventory, vars, {@code -e @file}) whole, with the two bounds
 * every such file gets: at most {@link #MAX_BYTES}, so that {@code /dev/zero} or a log file given by
 * mistake is refused instead of filling the heap, and strict UTF-8, with the byte offset, line and
 * column of the first invalid byte. Every failure is an {@link InvalidInputException}. Stateless.
 */
public final class TextFiles {
    /**
     * Far above any real playbook or inventory (a 10 000-host inventory is about 1 MiB), and what a
     * small controller's heap holds as YAML nodes (a few hundred bytes each, for a two-byte value).
     */
    public static final int MAX_BYTES = 4 * 1024 * 1024;

    private TextFiles() {
    }

    /**
     * The file's text.
     *
     * @param what what the file is, for messages ({@code "playbook"}, {@code "extra-vars"})
     */
    public static String read(Path file, String what) throws InvalidInputException {
        requireNonNull(file, "file cannot be null");
        requireNonNull(what, "what cannot be null");
        SourcePosition whole = new SourcePosition(file.toString(), 0, 0);
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            // One byte past the limit tells "exactly the limit" from "larger", without reading the rest.
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new InvalidInputException(whole, what + " file not found");
        } catch (AccessDeniedException e) {
            throw new InvalidInputException(whole, "cannot read " + what + " file: permission denied");
        } catch (IOException e) {
            throw new InvalidInputException(whole, "cannot read " + what + " file: " + e.getMessage());
        }
        if (bytes.length > MAX_BYTES) {
            throw new InvalidInputException(whole, what + " file is larger than " + (MAX_BYTES >> 20)
                    + " MiB; is it the right file?");
        }
        return decode(file.toString(), bytes, what);
    }

    /** Strict UTF-8; a BOM at the start is dropped, as editors on Windows write one. */
    static String decode(String file, byte[] bytes, String what) throws InvalidInputException {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            int offset = in.position();
            out.flip();
            SourcePosition at = positionAfter(file, out);
            throw new InvalidInputException(at, what + " file is not valid UTF-8: byte 0x"
                    + String.format("%02x", bytes[offset] & 0xff) + " at byte offset " + offset
                    + "; save the file as UTF-8");
        }
        decoder.flush(out);
        out.flip();
        String text = out.toString();
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    /** The line and column just after {@code before}, the text that decoded cleanly. */
    private static SourcePosition positionAfter(String file, CharSequence before) {
        int line = 1;
        int column = 1;
        for (int i = 0; i < before.length(); i++) {
            char c = before.charAt(i);
            if (c == '\n') {
                line++;
                column = 1;
            } else if (!Character.isLowSurrogate(c)) { // columns count characters, not UTF-16 halves
                column++;
            }
        }
        return new SourcePosition(file, line, column);
    }
}
