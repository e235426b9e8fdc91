package dev.provision.engine.connection;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * The sockets sshj connects to hosts with ({@code SSHClient.setSocketFactory}): reached directly
 * (a jump host is provision's own {@code ProxyJump}, never the JVM's SOCKS settings, whose lookup
 * parsed a URI per connection), and read through a buffer of {@value #READ_BUFFER} bytes.
 *
 * <p>Why the buffer: sshj reads the server's identification line a byte at a time (some forty
 * system calls per connection) and every packet in two reads, its first block and then the rest,
 * where the answers of a thousand hosts arrive as small packets, often several at once. Through a
 * buffer one system call brings what has arrived. Reads of more than the buffer holds go straight
 * to the socket.
 */
final class SshSockets extends SocketFactory {
    static final int READ_BUFFER = 8 * 1024;
    static final SshSockets INSTANCE = new SshSockets();

    private SshSockets() {
    }

    @Override
    public Socket createSocket() {
        return new BufferedSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return createSocket(InetAddress.getByName(host), port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return createSocket(InetAddress.getByName(host), port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
        return connected(new InetSocketAddress(address, port), new InetSocketAddress(localAddress, localPort));
    }

    private static Socket connected(InetSocketAddress remote, InetSocketAddress... local) throws IOException {
        Socket socket = new BufferedSocket();
        try {
            for (InetSocketAddress l : local) {
                socket.bind(l);
            }
            socket.connect(remote);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** A direct socket whose input stream is buffered (the same stream on every call). */
    private static final class BufferedSocket extends Socket {
        private InputStream in;

        BufferedSocket() {
            super(Proxy.NO_PROXY);
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new BufferedInputStream(super.getInputStream(), READ_BUFFER);
            }
            return in;
        }
    }
}
