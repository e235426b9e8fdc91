package dev.provision.engine.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The sockets sshj reaches hosts with: direct, and read through one buffer that loses nothing. */
class SshSocketsTest {
    private static final byte[] SENT = "SSH-2.0-OpenSSH_9.2p1\r\n\0\0\0\u0014\u0006rest of a packet".getBytes(StandardCharsets.ISO_8859_1);

    @Test
    void readsAByteAtATimeAndInBulkFromOneBufferedStream() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
             Socket client = SshSockets.INSTANCE.createSocket()) {
            client.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 5000);
            try (Socket accepted = server.accept(); OutputStream out = accepted.getOutputStream()) {
                out.write(SENT);
                out.flush();
                InputStream in = client.getInputStream();
                assertSame(in, client.getInputStream(), "sshj and its reader must share one stream, and its buffer");
                assertInstanceOf(BufferedInputStream.class, in);
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                int b;
                while ((b = in.read()) != '\n') {
                    got.write(b);
                }
                got.write(b);
                byte[] rest = new byte[SENT.length - got.size()];
                int n = 0;
                while (n < rest.length) {
                    n += in.read(rest, n, rest.length - n);
                }
                got.write(rest);
                assertArrayEquals(SENT, got.toByteArray(), "the identification line read byte by byte, then the packet in bulk");
            }
        }
    }

    @Test
    void connectsWhereTheFactorysOtherFormsAreAskedTo() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
             Socket byName = SshSockets.INSTANCE.createSocket("127.0.0.1", server.getLocalPort());
             Socket byAddress = SshSockets.INSTANCE.createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
            assertEquals(server.getLocalPort(), byName.getPort());
            assertEquals(server.getLocalPort(), byAddress.getPort());
            assertInstanceOf(BufferedInputStream.class, byName.getInputStream());
        }
    }
}
