package dev.provision.engine.connection;

import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.schmizz.concurrent.Promise;
import net.schmizz.keepalive.KeepAlive;
import net.schmizz.keepalive.KeepAliveProvider;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.common.DisconnectReason;
import net.schmizz.sshj.common.SSHPacket;
import net.schmizz.sshj.connection.ConnectionException;
import net.schmizz.sshj.connection.ConnectionImpl;
import net.schmizz.sshj.transport.Transport;

/**
 * Keepalives for every SSH connection of the run from one timer ({@link ConnectionTimer}), like OpenSSH's
 * {@code ServerAliveInterval}/{@code ServerAliveCountMax}: every interval a {@code keepalive@openssh.com}
 * request that wants a reply, unless the host answered a command within the interval (which also
 * resets the count); a connection with {@code ServerAliveCountMax} requests unanswered is broken off.
 *
 * <p>Why not sshj's own: it is a platform thread per connection, and at a thousand hosts those
 * thousand threads (waking, and their stacks scanned at every garbage collection) cost the
 * controller about 5% of its CPU. Each beat runs on a virtual thread of its own, so that one host
 * whose socket no longer drains cannot hold up the others; a beat still stuck in its send at the
 * next tick counts as unanswered too.
 */
final class Heartbeat {
    private Heartbeat() {
    }

    /** Gives each sshj connection a {@link Beat}, which does nothing until {@link Beat#begin}. */
    static KeepAliveProvider provider() {
        return new KeepAliveProvider() {
            @Override
            public KeepAlive provide(ConnectionImpl connection) {
                return new Beat(connection);
            }
        };
    }

    /** Starts {@code client}'s keepalives (once it is authenticated); none where they are off. */
    static void begin(SSHClient client, HostSettings.KeepAlive keepAlive) {
        Beat beat = beatOf(client);
        if (beat != null && !keepAlive.off()) {
            beat.begin(keepAlive);
        }
    }

    /**
     * Why the keepalives gave up on {@code client}'s host, with the settings that decided it and the
     * one to change for a host that is only slow; empty while they have not.
     */
    static Optional<String> lossReason(SSHClient client) {
        Beat beat = beatOf(client);
        return beat == null ? Optional.empty() : Optional.ofNullable(beat.lossReason);
    }

    /**
     * The host just answered (a command's result): no keepalive is due for an interval, and the
     * unanswered ones no longer count, as OpenSSH's count resets on anything the server sends.
     */
    static void heard(SSHClient client) {
        Beat beat = beatOf(client);
        if (beat != null) {
            beat.lastHeard = System.nanoTime();
        }
    }

    /** Stops {@code client}'s keepalives (it is closing). */
    static void end(SSHClient client) {
        Beat beat = beatOf(client);
        if (beat != null) {
            beat.end();
        }
    }

    /** The client's beat; null for a client made with another configuration (jump hosts' share ours). */
    private static Beat beatOf(SSHClient client) {
        return client.getConnection().getKeepAlive() instanceof Beat beat ? beat : null;
    }

    /**
     * One connection's keepalive. sshj's interface makes it a {@link Thread}; it is never started
     * (its interval stays 0): the shared timer drives it.
     */
    static final class Beat extends KeepAlive {
        private final Queue<Promise<SSHPacket, ConnectionException>> unanswered = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean sending = new AtomicBoolean();
        private final AtomicInteger stuckTicks = new AtomicInteger();
        private volatile HostSettings.KeepAlive settings = HostSettings.KeepAlive.DEFAULT;
        private volatile String lossReason;
        private volatile long lastHeard = System.nanoTime();
        private volatile ScheduledFuture<?> ticks;

        Beat(ConnectionImpl connection) {
            super(connection, "provision-keepalive");
        }

        /** Beats every interval of silence; after {@code countMax} unanswered beats the connection is dropped. */
        private void begin(HostSettings.KeepAlive keepAlive) {
            this.settings = keepAlive;
            ticks = ConnectionTimer.every(keepAlive.intervalSeconds(), this::tick);
        }

        private void end() {
            ScheduledFuture<?> scheduled = ticks;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }

        private void tick() {
            Transport transport = conn.getTransport();
            if (!transport.isRunning()) {
                end();
                return;
            }
            if (System.nanoTime() - lastHeard < TimeUnit.SECONDS.toNanos(settings.intervalSeconds())) {
                unanswered.clear();
                stuckTicks.set(0);
                return;
            }
            int missed = settings.countMax();
            if (!sending.compareAndSet(false, true)) {
                if (stuckTicks.incrementAndGet() >= missed) {
                    // Our output is backed up: the host has not taken in what was sent to it.
                    giveUp(transport, new ConnectionException(DisconnectReason.CONNECTION_LOST, lost(
                            "the host took in nothing sent to it for " + missed + " keepalive intervals of "
                                    + settings.intervalSeconds() + " s")));
                }
                return;
            }
            stuckTicks.set(0);
            Thread.ofVirtual().name("provision-keepalive-beat").start(() -> {
                try {
                    doKeepAlive();
                } catch (Exception e) {
                    giveUp(transport, e);
                } finally {
                    sending.set(false);
                }
            });
        }

        private void giveUp(Transport transport, Exception why) {
            end();
            if (lossReason == null && why instanceof ConnectionException lost
                    && lost.getDisconnectReason() == DisconnectReason.CONNECTION_LOST) {
                lossReason = lost.getMessage();
            }
            transport.die(why);
        }

        /** {@code what} happened, the settings that made it a loss, and what to set for a slow host. */
        private String lost(String what) {
            int interval = settings.intervalSeconds();
            return what + " (ServerAliveInterval " + interval + ", ServerAliveCountMax " + settings.countMax()
                    + "); if the host is only slow, give it longer: -o ServerAliveInterval=" + Math.max(60, 4 * interval)
                    + " in ansible_ssh_common_args";
        }

        @Override
        protected void doKeepAlive() throws net.schmizz.sshj.transport.TransportException, ConnectionException {
            if (!conn.equals(conn.getTransport().getService())) {
                return; // not authenticated yet, or already closing
            }
            int missed = settings.countMax();
            for (Promise<SSHPacket, ConnectionException> oldest; (oldest = unanswered.peek()) != null && oldest.isFulfilled(); ) {
                unanswered.poll();
            }
            if (unanswered.size() >= missed) {
                throw new ConnectionException(DisconnectReason.CONNECTION_LOST, lost(missed == 0
                        ? "silent for a keepalive interval of " + settings.intervalSeconds() + " s"
                        : "no answer to " + missed + " keepalives sent " + settings.intervalSeconds() + " s apart"));
            }
            unanswered.add(conn.sendGlobalRequest("keepalive@openssh.com", true, new byte[0]));
        }
    }
}
