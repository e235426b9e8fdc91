package dev.provision.modules.checks;

import dev.provision.modules.spi.CheckResult;
import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.ProbeResult;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import dev.provision.modules.spi.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code dcgm_diag}: NVIDIA's own GPU diagnostic where DCGM is installed, {@code dcgmi diag -r
 * LEVEL -j} bounded by {@code timeout}, read with {@link DcgmDiagOutput}: one row per DCGM test
 * ({@code dcgm.software}, {@code dcgm.memory}, {@code dcgm.pcie}, {@code dcgm.targeted_stress}, ...),
 * its worst result over the GPUs. Pass is PASS; Warn is WARN and Fail is FAIL, each with DCGM's own
 * text and the action to take; Skip and Not Run are UNKNOWN (DCGM did not judge: a SKU missing from
 * its diag-skus.yaml, not root, pending page retirements), except a skip DCGM explains as not
 * supported, which is SKIP. DCGM absent ({@code dcgmi} not found), its host engine not running, a
 * timeout or output that is no diagnostic document is one UNKNOWN row, {@code dcgm.diag}: could not
 * run, never a failure. The level follows {@code tier} (quick 1, standard 2, full or acceptance 3)
 * unless {@code level} is given.
 *
 * <p>A module of its own rather than an option of {@code gpu_acceptance}: another tool with its own
 * service (nv-hostengine), its own minutes to an hour of runtime and its own failure modes; asked
 * for on its own in {@code preflight_checks}, and its absence touches no PyTorch figure.
 */
public final class DcgmDiagCheckModule implements TaskModule {
    /** Seconds {@code dcgmi diag} may take per level unless {@code timeout} says (DCGM's documented durations, with room). */
    private static final Map<Integer, Long> TIMEOUTS = Map.of(1, 300L, 2, 900L, 3, 2700L);
    private static final Map<String, Integer> TIER_LEVELS = Map.of("quick", 1, "standard", 2, "full", 3, "acceptance", 3);
    /** Grace after SIGINT (dcgmi stops its diagnostic on it) before SIGKILL. */
    static final int KILL_AFTER_SECONDS = 30;
    /**
     * Read-only but long: $1 dcgmi, $2 seconds, $3 level. Exit 127 when dcgmi is missing; timeout's
     * 124 (or 137 after the grace) when it ran out of time.
     */
    static final String SCRIPT = "command -v \"$1\" >/dev/null 2>&1 || { echo \"$1: not found\" >&2; exit 127; }; "
            + "exec timeout -s INT -k " + KILL_AFTER_SECONDS + " \"$2\" \"$1\" diag -r \"$3\" -j";
    /** What dcgmi prints when no host engine answers (NVIDIA/DCGM {@code dcgmi/Command.cpp}, {@code Diag.cpp}). */
    private static final List<String> NO_HOST_ENGINE = List.of("unable to establish a connection", "unable to connect to host engine",
            "unable to start an embedded host engine");

    private static final ParamSpec SPEC = ParamSpec.builder()
            .choice("tier", "standard", "quick", "standard", "full", "acceptance")
            .optional("level", Type.ANY)
            .optional("timeout", Type.ANY)
            .withDefault("dcgmi", Type.STRING, "dcgmi")
            .build();

    public DcgmDiagCheckModule() {
    }

    @Override
    public String name() {
        return "dcgm_diag";
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    /** It stresses the GPUs for minutes: in its turn, never alongside another task's benchmark. */
    @Override
    public boolean probesAhead() {
        return false;
    }

    @Override
    public String description() {
        return """
                A check that runs NVIDIA DCGM's diagnostic where DCGM is installed: dcgmi diag -r LEVEL -j, bounded by
                timeout, one row per DCGM test (dcgm.software, dcgm.memory, dcgm.pcie, dcgm.targeted_stress, ...), the
                worst result over the GPUs. Pass passes; Warn warns and Fail fails, each with DCGM's own text and what
                to do next; Skip and Not Run are unknown (DCGM did not judge: a GPU missing from its diag-skus.yaml,
                not root, pending page retirements), never a pass, unless DCGM says the test is not supported here
                (skip). DCGM not installed, its host engine not running, a timeout or output that is no diagnostic is
                one unknown row, dcgm.diag ("could not run"), never a failure. level: 1, 2 or 3; by default from
                tier: quick 1, standard 2, full or acceptance 3. timeout: seconds (default 300, 900, 2700 by level;
                the task's own --task-timeout still bounds it). dcgmi: the program (default dcgmi on PATH).
                Sources: docs/gpu-acceptance.md, docs/gpu-acceptance-sources.md.""";
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        CheckReport report = new CheckReport(name());
        int level = level(params);
        long timeout = number(params, "timeout").orElse(TIMEOUTS.get(level));
        if (timeout < 1) {
            throw new ModuleException("timeout: must be at least 1 second, got " + timeout);
        }
        String dcgmi = Probes.plainName("dcgmi", params.string("dcgmi"));
        report.measured("dcgm_level", (long) level);
        ProbeResult run = context.host().probe(command(dcgmi, timeout, level).toArray(String[]::new));
        return report.addAll(rows(run, level, timeout)).plan();
    }

    static List<String> command(String dcgmi, long timeout, int level) {
        return List.of("sh", "-c", SCRIPT, "sh", dcgmi, String.valueOf(timeout), String.valueOf(level));
    }

    private static int level(Params params) throws ModuleException {
        Optional<Long> given = number(params, "level");
        if (given.isPresent()) {
            if (given.get() < 1 || given.get() > 3) {
                throw new ModuleException("level: must be 1, 2 or 3, got " + given.get());
            }
            return given.get().intValue();
        }
        return TIER_LEVELS.get(params.string("tier"));
    }

    /** A whole number parameter; blank is "not given", so that a playbook can pass {@code "${dcgm_level!''}"}. */
    private static Optional<Long> number(Params params, String name) throws ModuleException {
        Optional<String> text = params.has(name) && params.raw(name) != null
                ? Optional.of(String.valueOf(params.raw(name)).strip()).filter(t -> !t.isEmpty()) : Optional.empty();
        try {
            return text.map(t -> Long.parseLong(t.strip()));
        } catch (NumberFormatException e) {
            throw new ModuleException(name + ": must be a whole number, got '" + text.get() + "'");
        }
    }

    /** The table for what the run printed: a row per DCGM test, or one {@code dcgm.diag} row saying why there is none. */
    static List<CheckResult> rows(ProbeResult run, int level, long timeout) {
        String output = Probes.output(run);
        if (run.exitCode() == Probes.NOT_FOUND) {
            return List.of(notRun("could not run: dcgmi not installed: install DCGM (datacenter-gpu-manager) and start its host engine"
                    + " (systemctl enable --now nvidia-dcgm), or leave dcgm out of preflight_checks"));
        }
        if (run.exitCode() == 124 || run.exitCode() == 137) {
            return List.of(notRun("could not judge: dcgmi diag -r " + level + " timed out after " + timeout + " s: run it when the GPUs"
                    + " are idle, or give it a longer timeout (dcgm_timeout)"));
        }
        String lower = output.toLowerCase(Locale.ROOT);
        DcgmDiagOutput diag;
        try {
            diag = DcgmDiagOutput.parse(run.stdout());
        } catch (IllegalArgumentException e) {
            if (NO_HOST_ENGINE.stream().anyMatch(lower::contains)) {
                return List.of(notRun("could not run: the DCGM host engine is not running (" + Probes.firstLine(run)
                        + "): systemctl enable --now nvidia-dcgm (or start nv-hostengine)"));
            }
            return List.of(notRun("could not judge: dcgmi printed no diagnostic (" + e.getMessage() + "; exit " + run.exitCode() + ": "
                    + Probes.firstLine(run) + "): run dcgmi diag -r " + level + " -j on the node"));
        }
        List<CheckResult> rows = new ArrayList<>();
        diag.runtimeError().ifPresent(error -> rows.add(notRun("could not run: dcgmi diag: " + DcgmDiagOutput.oneLine(error)
                + ": see nv-hostengine.log and nvvs.log in /var/log/nvidia-dcgm")));
        for (DcgmDiagOutput.Test test : diag.tests()) {
            rows.add(row(test, level));
        }
        return rows;
    }

    private static CheckResult notRun(String detail) {
        return CheckResult.unknown("dcgm.diag", detail);
    }

    /** A test's row: its worst result over the entities (fail, then unknown, then warn, then skip). */
    static CheckResult row(DcgmDiagOutput.Test test, int level) {
        String check = "dcgm." + slug(test.name());
        List<DcgmDiagOutput.Result> results = test.results().isEmpty() ? test.summary().map(List::of).orElse(List.of()) : test.results();
        String expected = "pass (level " + level + ")";
        if (results.isEmpty()) {
            return new CheckResult(check, "no result", expected, Verdict.UNKNOWN, "could not judge: DCGM reported no result for "
                    + test.name() + ": run dcgmi diag -r " + level + " on the node");
        }
        String measured = measured(results);
        List<DcgmDiagOutput.Result> failing = with(results, DcgmDiagOutput.Status.FAIL);
        if (!failing.isEmpty()) {
            return new CheckResult(check, measured, expected, Verdict.FAIL, dcgmSays(failing, test) + ": " + failAction(test));
        }
        List<DcgmDiagOutput.Result> strange = with(results, DcgmDiagOutput.Status.OTHER);
        if (!strange.isEmpty()) {
            return new CheckResult(check, measured, expected, Verdict.UNKNOWN, "could not judge: DCGM's status '"
                    + strange.get(0).statusWord() + "' is none of Pass, Warn, Fail, Skip: read dcgmi diag -r " + level + " on the node");
        }
        List<DcgmDiagOutput.Result> notRun = results.stream().filter(r -> r.status() == DcgmDiagOutput.Status.NOT_RUN
                || r.status() == DcgmDiagOutput.Status.SKIP && !notApplicable(r, test)).toList();
        if (!notRun.isEmpty()) {
            return new CheckResult(check, measured, expected, Verdict.UNKNOWN, "could not judge: DCGM did not run it on "
                    + entities(notRun) + why(notRun, test) + ": run dcgmi as root; check that the GPU is in DCGM's diag-skus.yaml"
                    + " and that no page retirement is pending (nvidia-smi -q -d PAGE_RETIREMENT)");
        }
        List<DcgmDiagOutput.Result> warning = with(results, DcgmDiagOutput.Status.WARN);
        if (!warning.isEmpty()) {
            return new CheckResult(check, measured, expected, Verdict.WARN, dcgmSays(warning, test)
                    + ": watch it; run dcgmi diag -r 3 when the node is drained");
        }
        if (results.stream().allMatch(r -> r.status() == DcgmDiagOutput.Status.SKIP)) {
            return new CheckResult(check, measured, "-", Verdict.SKIP, "not applicable here: DCGM skipped it" + why(results, test));
        }
        return CheckResult.pass(check, measured, expected);
    }

    /** A skip DCGM explains as a feature this GPU lacks: the test does not apply (SKIP), rather than was not run. */
    private static boolean notApplicable(DcgmDiagOutput.Result r, DcgmDiagOutput.Test test) {
        List<String> texts = new ArrayList<>(r.warnings());
        test.summary().ifPresent(s -> texts.addAll(s.warnings()));
        return !texts.isEmpty() && texts.stream().map(t -> t.toLowerCase(Locale.ROOT))
                .allMatch(t -> t.contains("not supported") || t.contains("is not enabled") || t.contains("not applicable"));
    }

    /** {@code pass on 8 GPUs}, {@code fail on GPU 1; pass on GPU 0}: each status with the entities that had it. */
    private static String measured(List<DcgmDiagOutput.Result> results) {
        Map<String, List<String>> byStatus = results.stream().collect(Collectors.groupingBy(r -> r.statusWord().toLowerCase(Locale.ROOT),
                java.util.LinkedHashMap::new, Collectors.mapping(DcgmDiagOutput.Result::entity, Collectors.toList())));
        return byStatus.entrySet().stream().map(e -> (e.getKey().isEmpty() ? "no status" : e.getKey()) + " on " + shown(e.getValue()))
                .collect(Collectors.joining("; "));
    }

    private static String shown(List<String> entities) {
        if (entities.size() > 3 && entities.stream().allMatch(e -> e.startsWith("GPU "))) {
            return entities.size() + " GPUs";
        }
        return String.join(", ", entities);
    }

    private static List<DcgmDiagOutput.Result> with(List<DcgmDiagOutput.Result> results, DcgmDiagOutput.Status status) {
        return results.stream().filter(r -> r.status() == status).toList();
    }

    private static String entities(List<DcgmDiagOutput.Result> results) {
        return shown(results.stream().map(DcgmDiagOutput.Result::entity).toList());
    }

    /** DCGM's own words for these results (theirs, else the test summary's), one line. */
    private static String dcgmSays(List<DcgmDiagOutput.Result> results, DcgmDiagOutput.Test test) {
        String status = results.get(0).statusWord();
        return "DCGM " + test.name() + " " + status + " on " + entities(results) + why(results, test);
    }

    /** {@code " (DCGM's text)"}, the distinct warnings of these results or of the test's summary; empty when DCGM gave none. */
    private static String why(List<DcgmDiagOutput.Result> results, DcgmDiagOutput.Test test) {
        List<String> texts = results.stream().flatMap(r -> r.warnings().stream()).distinct().toList();
        if (texts.isEmpty()) {
            texts = test.summary().map(DcgmDiagOutput.Result::warnings).orElse(List.of());
        }
        if (texts.isEmpty()) {
            return "";
        }
        String joined = String.join("; ", texts);
        return " (" + (joined.length() > 300 ? joined.substring(0, 297) + "..." : joined) + ")";
    }

    /** What an operator does after a failed DCGM test, by what the test exercises. */
    static String failAction(DcgmDiagOutput.Test test) {
        String name = test.name().toLowerCase(Locale.ROOT);
        String category = test.category().toLowerCase(Locale.ROOT);
        if (category.equals("deployment") || name.equals("software")) {
            return "fix what DCGM names (its text says how), then run the check again";
        }
        if (name.contains("page retirement") || name.contains("row remap")) {
            return "drain the node and reboot; if pages keep retiring, RMA the GPU";
        }
        if (name.contains("pcie") || name.contains("nvlink") || name.contains("bandwidth") && !name.contains("memory")) {
            return "drain the node; reseat the GPU or its riser, check the link (nvidia-smi -q, lspci -vv); RMA if it stays";
        }
        if (name.contains("memory") || name.contains("memtest")) {
            return "drain the node; reset the GPU (nvidia-smi -r) and run dcgmi diag -r 3 again; RMA if it fails again";
        }
        return "drain the node; check cooling and power, reset the GPU (nvidia-smi -r) or reboot and run dcgmi diag -r 3 again;"
                + " RMA if it fails again";
    }

    /** {@code Targeted Stress} -> {@code targeted_stress}, {@code Page Retirement/Row Remap} -> {@code page_retirement_row_remap}. */
    static String slug(String name) {
        String s = name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "_").replaceAll("^_+|_+$", "");
        return s.isEmpty() ? "test" : s;
    }
}
