package dev.provision.modules.system;

import static dev.provision.modules.testing.Expect.converged;
import static dev.provision.modules.testing.Expect.fails;
import static dev.provision.modules.testing.Expect.planned;
import static dev.provision.modules.testing.Table.row;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.testing.Args;
import dev.provision.modules.testing.FakeContext;
import dev.provision.modules.testing.FakeHost;
import dev.provision.modules.testing.ModuleTableTest;
import dev.provision.modules.testing.Table;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@code semanage fcontext -l -C} as policycoreutils' python/semanage/seobject.py
 * {@code fcontextRecords.list} prints it: a heading, a blank line, then {@code "%-50s %-18s %s:%s:%s:%s "}
 * (expression, libsemanage's file type name, user:role:type:level, a trailing blank) with MLS on, as on
 * a RHEL 8 node with the targeted policy; without MLS the level is left out; a rule without a context
 * is {@code <<None>>}. {@code selinuxenabled} exits 0 or 1.
 */
class SefcontextModuleTest extends ModuleTableTest<SefcontextModule> {
    private static final String HEADING = "SELinux fcontext                                   type               Context\n\n";
    private static final String GIT = "/srv/git_repos(/.*)?                               all files          system_u:object_r:httpd_sys_rw_content_t:s0 \n";
    private static final String LIB64 = "/lib64(/.*)?                                       all files          system_u:object_r:mysqld_db_t:s0 \n";
    private static final String LIB64_LIB = "/lib64(/.*)?                                       all files          system_u:object_r:lib_t:s0 \n";

    SefcontextModuleTest() {
        super(new SefcontextModule());
    }

    /**
     * An enforcing node whose local rules are {@code rows}; semanage's changes rewrite the listing (the
     * rows each test plans, nothing more).
     */
    private static FakeHost node(String rows) {
        FakeHost host = new FakeHost().probe(0, "", "", "selinuxenabled")
                .probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, rows.isEmpty() ? "" : HEADING + rows, ""));
        String others = rows.replace(LIB64, "").replace(LIB64_LIB, "");
        String with = HEADING + others + LIB64;
        host.onExec(List.of("semanage", "fcontext", "-a", "-f", "a", "-t", "mysqld_db_t", "/lib64(/.*)?"),
                h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, with, "")));
        host.onExec(List.of("semanage", "fcontext", "-m", "-f", "a", "-t", "mysqld_db_t", "/lib64(/.*)?"),
                h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, with, "")));
        host.onExec(List.of("semanage", "fcontext", "-m", "-f", "a", "-t", "mysqld_db_t", "-s", "unconfined_u", "/lib64(/.*)?"),
                h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, HEADING + others + LIB64.replace("system_u", "unconfined_u"), "")));
        host.onExec(List.of("semanage", "fcontext", "-d", "-f", "a", "/lib64(/.*)?"),
                h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, others.isEmpty() ? "" : HEADING + others, "")));
        host.onExec(List.of("semanage", "fcontext", "-a", "-f", "d", "-t", "mysqld_db_t", "-r", "s0", "-N", "/lib64(/.*)?"),
                h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, HEADING + rows
                        + "/lib64(/.*)?                                       directory          system_u:object_r:mysqld_db_t:s0 \n", "")));
        return host;
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                row("DeepOps' slurm controller: a new rule", node(GIT), Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t", "state", "present"),
                        planned("exec [semanage, fcontext, -a, -f, a, -t, mysqld_db_t, /lib64(/.*)?]")),
                row("the first local rule", node(""), Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t"),
                        planned("exec [semanage, fcontext, -a, -f, a, -t, mysqld_db_t, /lib64(/.*)?]")),
                row("the rule is there", node(GIT + LIB64), Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t"),
                        converged("SELinux file context rule for /lib64(/.*)? (all files) is system_u:object_r:mysqld_db_t:s0")),
                row("another type: modified", node(LIB64_LIB + GIT), Args.of("path", "/lib64(/.*)?", "setype", "mysqld_db_t"),
                        planned("exec [semanage, fcontext, -m, -f, a, -t, mysqld_db_t, /lib64(/.*)?]")),
                row("another user: modified", node(LIB64), Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t", "seuser", "unconfined_u"),
                        planned("exec [semanage, fcontext, -m, -f, a, -t, mysqld_db_t, -s, unconfined_u, /lib64(/.*)?]")),
                row("another file type is another rule, no reload", node(LIB64),
                        Args.of("target", "/lib64(/.*)?", "ftype", "d", "setype", "mysqld_db_t", "selevel", "s0", "reload", false),
                        planned("exec [semanage, fcontext, -a, -f, d, -t, mysqld_db_t, -r, s0, -N, /lib64(/.*)?]")),
                row("without MLS a level given is not compared", new FakeHost().probe(0, "", "", "selinuxenabled")
                                .probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, HEADING + LIB64.replace(":s0 ", " "), "")),
                        Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t", "selevel", "s0"),
                        converged("SELinux file context rule for /lib64(/.*)? (all files) is system_u:object_r:mysqld_db_t")),
                row("absent deletes the local rule", node(GIT + LIB64), Args.of("target", "/lib64(/.*)?", "state", "absent"),
                        planned("exec [semanage, fcontext, -d, -f, a, /lib64(/.*)?]")),
                row("absent and no local rule", node(GIT), Args.of("target", "/lib64(/.*)?", "state", "absent"),
                        converged("no local SELinux file context rule for /lib64(/.*)? (all files)")),
                row("semanage not installed yet: no local rules", new FakeHost().probe(0, "", "", "selinuxenabled")
                                .probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(127, "", "env: 'semanage': No such file or directory\n"))
                                .onExec(List.of("semanage", "fcontext", "-a", "-f", "a", "-t", "mysqld_db_t", "/lib64(/.*)?"),
                                        h -> h.probe(Selinux.LOCAL_FCONTEXTS, new ProbeResult(0, HEADING + LIB64, ""))),
                        Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t"),
                        planned("exec [semanage, fcontext, -a, -f, a, -t, mysqld_db_t, /lib64(/.*)?]")),
                row("SELinux disabled fails, as in Ansible", new FakeHost().probe(1, "", "", "selinuxenabled"),
                        Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t"), fails("SELinux is disabled on this host.")),
                row("SELinux disabled, ignored", node(GIT).probe(1, "", "", "selinuxenabled"),
                        Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t", "ignore_selinux_state", true),
                        planned("exec [semanage, fcontext, -a, -f, a, -t, mysqld_db_t, /lib64(/.*)?]")),
                row("present needs setype", node(GIT), Args.of("target", "/lib64(/.*)?"), fails("state present needs setype")),
                row("a relative target", node(GIT), Args.of("target", "lib64", "setype", "lib_t"), fails("absolute path expression")),
                row("substitute is refused", node(GIT), Args.of("target", "/srv/containers", "substitute", "/var/lib/containers"),
                        fails("semanage fcontext -a -e")),
                row("an unknown ftype", node(GIT), Args.of("target", "/srv", "ftype", "x", "setype", "var_t"), fails("ftype")));
    }

    static Stream<Arguments> plannedCases() {
        return Table.planned(cases());
    }

    @Test
    void readsTheLocalRulesAsSemanagePrintsThem() {
        String listing = HEADING + GIT + "/srv/nomatch                                       directory          <<None>>\n"
                + "/opt/app(/.*)?                                     regular file       system_u:object_r:bin_t \n"
                + "\nSELinux Local fcontext Equivalence \n\n/srv/containers = /var/lib/containers\n";
        assertEquals(List.of(
                        new Selinux.FileContext("/srv/git_repos(/.*)?", "all files",
                                Optional.of(new Selinux.Context("system_u", "object_r", "httpd_sys_rw_content_t", Optional.of("s0")))),
                        new Selinux.FileContext("/srv/nomatch", "directory", Optional.empty()),
                        new Selinux.FileContext("/opt/app(/.*)?", "regular file",
                                Optional.of(new Selinux.Context("system_u", "object_r", "bin_t", Optional.empty())))),
                Selinux.parseFileContexts(listing));
        // an MLS range with categories keeps its colons
        assertEquals(Optional.of("s0-s0:c0.c1023"), Selinux.parseFileContexts(HEADING
                + "/data(/.*)?                                        all files          system_u:object_r:var_t:s0-s0:c0.c1023 \n")
                .getFirst().context().orElseThrow().level());
    }

    @Test
    void theDryRunKnowsTheListingAfterwards() throws Exception {
        Plan plan = module.plan(module.params().validate(Args.of("target", "/lib64(/.*)?", "setype", "mysqld_db_t")),
                new FakeContext(node(GIT), controller));
        ProbeResult after = plan.afterwards().get(Selinux.LOCAL_FCONTEXTS);
        assertEquals(HEADING + GIT + LIB64, after.stdout());
        Plan removed = module.plan(module.params().validate(Args.of("target", "/lib64(/.*)?", "state", "absent")),
                new FakeContext(node(GIT + LIB64), controller));
        assertEquals(HEADING + GIT, removed.afterwards().get(Selinux.LOCAL_FCONTEXTS).stdout());
    }
}
