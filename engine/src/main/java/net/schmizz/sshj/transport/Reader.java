package net.schmizz.sshj.transport;

import java.io.InputStream;
import java.net.SocketTimeoutException;

/**
 * provision's own version of the one class of sshj it replaces: the thread of each SSH connection
 * that reads the socket and hands what arrives to the connection's decoder. sshj's
 * {@code TransportImpl} starts one per connection; this class takes the place of sshj's of the same
 * name (engine/pom.xml leaves sshj's out of the shaded jar; on a test or build class path the
 * engine's own classes come before sshj's jar), and {@code SshjReaderTest} checks both that it is
 * the one loaded and that sshj is the version whose reader it was written against.
 *
 * <p>The contract is sshj's: a daemon thread that feeds the decoder the bytes it says it needs
 * next, ignores a read timeout unless it was interrupted, and on anything else, end of stream
 * included, makes the transport die unless it was interrupted (a transport that closes interrupts
 * its reader first).
 *
 * <p>Why: sshj's reader holds a buffer of the largest packet the protocol allows (256 KB) for the
 * life of every connection: at a thousand hosts 256 MB of a run's 820 MB, every byte of it zeroed
 * by the JVM and touched in pages the kernel must clear first. The decoder takes a packet in as
 * many pieces as the reader likes (it answers each piece with what it still needs), so a buffer
 * of {@value #BUFFER_SIZE} bytes serves as well. A channel's packets are at most 32 KB of data
 * (sshj's local maximum packet size), so a large answer costs a second read call per packet, next
 * to decrypting it nothing.
 */
public final class Reader extends Thread {
    static final int BUFFER_SIZE = 16 * 1024;

    private final TransportImpl transport;

    public Reader(TransportImpl transport) {
        super("sshj-Reader");
        this.transport = transport;
        setDaemon(true);
    }

    @Override
    public void run() {
        try {
            Decoder decoder = transport.getDecoder();
            InputStream in = transport.getConnInfo().in;
            byte[] buffer = new byte[BUFFER_SIZE];
            int needed = 1;
            while (!isInterrupted()) {
                int read;
                try {
                    read = in.read(buffer, 0, Math.min(needed, buffer.length));
                } catch (SocketTimeoutException e) {
                    if (isInterrupted()) {
                        throw e;
                    }
                    continue;
                }
                if (read < 0) {
                    throw new TransportException("Broken transport; encountered EOF");
                }
                needed = decoder.received(buffer, read);
            }
        } catch (Exception e) {
            if (!isInterrupted()) {
                transport.die(e);
            }
        }
    }
}
