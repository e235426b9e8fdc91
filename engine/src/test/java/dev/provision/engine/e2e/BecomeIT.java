package dev.provision.engine.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Real sudo through the launcher; skipped where passwordless sudo to 'nobody' is not available. */
class BecomeIT {
    private static boolean passwordlessSudo() {
        try {
            Process p = new ProcessBuilder("sudo", "-n", "-u", "nobody", "--", "/bin/true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException e) {
            return false; // sudo is not installed
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void playBecomeRunsAsTheBecomeUserAndTaskCanOptOut() throws Exception {
        assumeTrue(passwordlessSudo(), "needs passwordless sudo to 'nobody'");
        Provision.Result r = Provision.run(Provision.REPO.resolve("engine/src/test/resources/e2e/become/whoami.yml").toString());
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("ok: [localhost] => running as nobody"), r.output());
        assertTrue(r.output().contains("ok: [localhost] => login user " + System.getProperty("user.name")), r.output());
    }
}
