package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Diff;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

class TimezoneModuleTest extends ModuleTableTest<TimezoneModule> {
    private static final String ZONEINFO = TimezoneModule.ZONEINFO;
    private static final String LOCALTIME = TimezoneModule.LOCALTIME;
    private static final String TIMEZONE = TimezoneModule.TIMEZONE_FILE;
    private static final String ADJTIME = TimezoneModule.ADJTIME;
    /** Debian 12's tzdata /usr/share/zoneinfo/Etc/UTC, byte for byte. */
    private static final byte[] UTC = Base64.getDecoder().decode("VFppZjIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAQAAAAAAABVVEMAVFppZjIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAQAAAAAAABVVEMAClVUQzAK");
    /** Debian 12's tzdata /usr/share/zoneinfo/Etc/GMT+5, byte for byte. */
    private static final byte[] GMT_PLUS_5 = Base64.getDecoder().decode("VFppZjIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAT//7mwAAAtMDUAVFppZjIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAAAAT//7mwAAAtMDUACjwtMDU+NQo=");
    /** /etc/adjtime as hwclock(8) writes it: drift, last adjustment; last calibration; UTC or LOCAL. */
    private static final String ADJTIME_UTC = "0.000000 1700000000 0.000000\n1700000000\nUTC\n";
    private static final String ADJTIME_LOCAL = "0.000000 1700000000 0.000000\n1700000000\nLOCAL\n";

    TimezoneModuleTest() {
        super(new TimezoneModule());
    }

    /** A host with tzdata installed: real zone files, {@code UTC} a link to {@code Etc/UTC} as tzdata ships it, and its tables. */
    static FakeHost tzdata() {
        return new FakeHost().directory("/etc")
                .bytes(ZONEINFO + "Etc/UTC", UTC, "0644", "root", "root")
                .bytes(ZONEINFO + "Etc/GMT+5", GMT_PLUS_5, "0644", "root", "root")
                .link(ZONEINFO + "UTC", "Etc/UTC")
                .file(ZONEINFO + "zone.tab", "# tzdb timezone descriptions\nAD\t+4230+00131\tEurope/Andorra\n")
                .directory(ZONEINFO + "America");
    }

    /** A Debian host in {@code zone}: /etc/localtime links to it, /etc/timezone names it. */
    static FakeHost debian(String zone) {
        return tzdata().fact("os_family", "Debian").link(LOCALTIME, ZONEINFO + zone).file(TIMEZONE, zone + "\n");
    }

    /** A Red Hat host in {@code zone}: /etc/localtime only. */
    static FakeHost redhat(String zone) {
        return tzdata().fact("os_family", "RedHat").link(LOCALTIME, ZONEINFO + zone);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("converged on Debian: link and /etc/timezone", debian("Etc/UTC"), Args.of("name", "Etc/UTC"),
                        converged("the time zone is Etc/UTC; /etc/timezone holds Etc/UTC")),
                row("another zone on Debian: relink and rewrite /etc/timezone", debian("Etc/UTC"), Args.of("name", "Etc/GMT+5"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5", "put /etc/timezone [0644 root root] \"Etc/GMT+5\\n\"")),
                row("only /etc/timezone drifted", debian("Etc/GMT+5").file(TIMEZONE, "Etc/UTC\n"), Args.of("name", "Etc/GMT+5"),
                        planned("put /etc/timezone [0644 root root] \"Etc/GMT+5\\n\"")),
                row("Red Hat: no /etc/timezone to write", redhat("Etc/UTC"), Args.of("name", "Etc/GMT+5"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5")),
                row("a host that keeps /etc/timezone without facts", tzdata().link(LOCALTIME, ZONEINFO + "Etc/UTC").file(TIMEZONE, "Etc/UTC\n"),
                        Args.of("name", "Etc/GMT+5"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5", "put /etc/timezone [0644 root root] \"Etc/GMT+5\\n\"")),
                row("a relative link as timedatectl writes it", redhat("Etc/UTC").link(LOCALTIME, "../usr/share/zoneinfo/Etc/GMT+5"),
                        Args.of("name", "Etc/GMT+5"), converged("the time zone is Etc/GMT+5")),
                row("a copy of the zone's file counts", tzdata().bytes(LOCALTIME, GMT_PLUS_5, "0644", "root", "root"),
                        Args.of("name", "Etc/GMT+5"),
                        converged("the time zone is Etc/GMT+5 (/etc/localtime is a copy of /usr/share/zoneinfo/Etc/GMT+5)")),
                row("a copy of another zone becomes a link", tzdata().bytes(LOCALTIME, UTC, "0644", "root", "root"),
                        Args.of("name", "Etc/GMT+5"), planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5")),
                row("a fresh Debian container: no /etc/localtime, no /etc/timezone", tzdata().fact("os_family", "Debian"),
                        Args.of("name", "Etc/UTC"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/UTC", "put /etc/timezone [0644 root root] \"Etc/UTC\\n\"")),
                row("UTC is not Etc/UTC: the link names what was asked", redhat("Etc/UTC"), Args.of("name", "UTC"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/UTC")),
                row("a link outside zoneinfo", redhat("Etc/UTC").link(LOCALTIME, "/opt/site/localtime"), Args.of("name", "Etc/UTC"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/UTC")),
                row("a zone that is not installed", debian("Etc/UTC"), Args.of("name", "Mars/Olympus_Mons"),
                        fails("given timezone \"Mars/Olympus_Mons\" is not available: there is no /usr/share/zoneinfo/Mars/Olympus_Mons")),
                row("a zoneinfo table, not a zone", debian("Etc/UTC"), Args.of("name", "zone.tab"),
                        fails("/usr/share/zoneinfo/zone.tab is not a zone file (TZif)")),
                row("a zoneinfo directory, not a zone", debian("Etc/UTC"), Args.of("name", "America"),
                        fails("given timezone \"America\" is not available: /usr/share/zoneinfo/America is a directory")),
                row("a name that climbs out of zoneinfo", debian("Etc/UTC"), Args.of("name", "../../../etc/shadow"),
                        fails("is not a time zone name")),
                row("an absolute path", debian("Etc/UTC"), Args.of("name", "/etc/shadow"), fails("is not a time zone name")),
                row("a name that would be an option", debian("Etc/UTC"), Args.of("name", "-f"), fails("is not a time zone name")),
                row("a name with shell in it", debian("Etc/UTC"), Args.of("name", "Etc/UTC;reboot"), fails("is not a time zone name")),
                row("a name with a newline", debian("Etc/UTC"), Args.of("name", "Etc/UTC\nEtc/GMT+5"), fails("is not a time zone name")),
                row("an empty name", debian("Etc/UTC"), Args.of("name", ""), fails("is not a time zone name")),
                row("/etc/localtime is a directory", tzdata().directory(LOCALTIME), Args.of("name", "Etc/UTC"),
                        fails("/etc/localtime is a directory; refusing to replace it")),
                row("neither name nor hwclock", debian("Etc/UTC"), Args.of(), fails("one of these parameters is required: hwclock, name")),
                row("hwclock spelled otherwise", debian("Etc/UTC"), Args.of("hwclock", "localtime"), fails("hwclock")),
                row("hwclock UTC without /etc/adjtime: UTC already", debian("Etc/UTC"), Args.of("hwclock", "UTC"),
                        converged("the hardware clock keeps UTC (no /etc/adjtime)")),
                row("hwclock UTC as /etc/adjtime says", debian("Etc/UTC").file(ADJTIME, ADJTIME_UTC), Args.of("hwclock", "UTC"),
                        converged("the hardware clock keeps UTC (/etc/adjtime)")),
                row("hwclock local on a fresh host", debian("Etc/UTC"), Args.of("hwclock", "local"),
                        planned("put /etc/adjtime [0644 root root] \"0.0 0 0.0\\n0\\nLOCAL\\n\"")),
                row("hwclock local: the third line changes, the calibration stays", debian("Etc/UTC").file(ADJTIME, ADJTIME_UTC),
                        Args.of("hwclock", "local"), planned("put /etc/adjtime [0644 root root] \"0.000000 1700000000 0.000000\\n1700000000\\nLOCAL\\n\"")),
                row("hwclock UTC back from local (alias rtc)", debian("Etc/UTC").file(ADJTIME, ADJTIME_LOCAL), Args.of("rtc", "UTC"),
                        planned("put /etc/adjtime [0644 root root] \"0.000000 1700000000 0.000000\\n1700000000\\nUTC\\n\"")),
                row("an /etc/adjtime of two lines is UTC", debian("Etc/UTC").file(ADJTIME, "0.0 0 0.0\n0\n"), Args.of("hwclock", "UTC"),
                        converged("the hardware clock keeps UTC (/etc/adjtime)")),
                row("an /etc/adjtime of two lines gets its third", debian("Etc/UTC").file(ADJTIME, "0.0 0 0.0\n0\n"), Args.of("hwclock", "local"),
                        planned("put /etc/adjtime [0644 root root] \"0.0 0 0.0\\n0\\nLOCAL\\n\"")),
                row("zone and hwclock, both converged", debian("Etc/GMT+5").file(ADJTIME, ADJTIME_LOCAL),
                        Args.of("name", "Etc/GMT+5", "hwclock", "local"),
                        converged("the time zone is Etc/GMT+5; /etc/timezone holds Etc/GMT+5; the hardware clock keeps local time (/etc/adjtime)")),
                row("zone and hwclock, both to change", debian("Etc/UTC").file(ADJTIME, ADJTIME_UTC),
                        Args.of("name", "Etc/GMT+5", "hwclock", "local"),
                        planned("link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5", "put /etc/timezone [0644 root root] \"Etc/GMT+5\\n\"",
                                "put /etc/adjtime [0644 root root] \"0.000000 1700000000 0.000000\\n1700000000\\nLOCAL\\n\"")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    private Plan plan(FakeHost host, Map<String, Object> args) throws Exception {
        return module.plan(module.params().validate(args), new FakeContext(host, controller));
    }

    @Test
    void theZoneChangeShowsBeforeAndAfterAsAnsibleDoes() throws Exception {
        Plan plan = plan(redhat("Etc/UTC"), Args.of("name", "Etc/GMT+5"));
        assertEquals("set the time zone to Etc/GMT+5 (was Etc/UTC): link /etc/localtime -> /usr/share/zoneinfo/Etc/GMT+5",
                plan.changes().getFirst().summary());
        assertEquals(List.of(new Diff("timezone", "Etc/UTC\n", "Etc/GMT+5\n")), plan.changes().getFirst().diffs());
    }

    @Test
    void aMissingLocaltimeIsAnEmptyBefore() throws Exception {
        Plan plan = plan(tzdata().fact("os_family", "RedHat"), Args.of("name", "Etc/UTC"));
        assertEquals(List.of(new Diff("timezone", "", "Etc/UTC\n")), plan.changes().getFirst().diffs());
    }

    @Test
    void theHwclockChangeShowsTheValueAndTheFile() throws Exception {
        Plan plan = plan(debian("Etc/UTC").file(ADJTIME, ADJTIME_UTC), Args.of("hwclock", "local"));
        assertEquals("set the hardware clock to local time in /etc/adjtime", plan.changes().getFirst().summary());
        List<Diff> diffs = plan.changes().getFirst().diffs();
        assertEquals(new Diff("hwclock", "UTC\n", "local\n"), diffs.getFirst());
        assertEquals(ADJTIME, diffs.get(1).label());
    }

    @Test
    void readsTheZoneALinkNames() {
        assertEquals(Optional.of("Europe/Berlin"), TimezoneModule.zoneOfLink("/usr/share/zoneinfo/Europe/Berlin"));
        assertEquals(Optional.of("Europe/Berlin"), TimezoneModule.zoneOfLink("../usr/share/zoneinfo/Europe/Berlin"));
        assertEquals(Optional.of("America/New_York"), TimezoneModule.zoneOfLink("/usr/share/zoneinfo/US/../America/New_York"));
        assertEquals(Optional.empty(), TimezoneModule.zoneOfLink("/usr/share/zoneinfo/"));
        assertEquals(Optional.empty(), TimezoneModule.zoneOfLink("/etc/zoneinfo/UTC"));
        assertEquals(Optional.empty(), TimezoneModule.zoneOfLink("/opt/site/localtime"));
    }
}
