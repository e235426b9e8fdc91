package dev.provision.engine.e2e.ansible;

import static dev.provision.engine.e2e.ansible.DiffCase.dir;
import static dev.provision.engine.e2e.ansible.DiffCase.file;
import static dev.provision.engine.e2e.ansible.DiffCase.hardLink;
import static dev.provision.engine.e2e.ansible.DiffCase.link;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The differential table: start files, one task, and (rarely) why provision means to differ. Each
 * editing operation runs over the same four start files (plain, no final newline, CRLF, empty),
 * because that is where line editors disagree; then come the cases of links, directories, missing
 * parents and parameters one at a time.
 */
final class AnsibleCases {
    private static final String BLOCK_BEGIN = "# BEGIN ANSIBLE MANAGED BLOCK\n";
    private static final String BLOCK_END = "# END ANSIBLE MANAGED BLOCK\n";
    private static final String GLUED = "Ansible 2.14 appends the line to a last line without newline, gluing the two"
            + " (\"cnew\"); provision ends that line first";
    private static final String NOTHING_REMOVED = "Ansible adds a newline to a file without one when state=absent finds no"
            + " block, and reports a change that removed nothing; provision leaves the file alone";

    private static final String TOUCH = "Ansible's touch updates the times and reports changed on every run; provision"
            + " changes nothing on an existing file whose attributes are right, so that a second run reports no change";

    private AnsibleCases() {
    }

    /** The four start files every editing operation meets. */
    private static final Map<String, String> TEXTS = Map.of(
            "plain", "a\nb\nc\n",
            "no final newline", "a\nb\nc",
            "CRLF", "a\r\nb\r\nc\r\n",
            "empty", "");

    private static final List<String> TEXT_ORDER = List.of("plain", "no final newline", "CRLF", "empty");

    static List<DiffCase> all() {
        List<DiffCase> cases = new ArrayList<>();
        lineinfileCases(cases);
        blockinfileCases(cases);
        replaceCases(cases);
        copyCases(cases);
        templateCases(cases);
        fileCases(cases);
        hardLinkCases(cases);
        remoteSrcCases(cases);
        recurseCases(cases);
        checksAndBackupsCases(cases);
        return cases;
    }

    /** Runs one operation on {@code f} over the four start texts. */
    private static void overTexts(List<DiffCase> cases, DiffCase op, Map<String, String> intended) {
        for (String name : TEXT_ORDER) {
            DiffCase c = op.startingWith("[" + name + "]", List.of(file("f", TEXTS.get(name))));
            cases.add(intended.containsKey(name) ? c.intendedBecause(intended.get(name)) : c);
        }
    }

    private static void overTexts(List<DiffCase> cases, DiffCase op) {
        overTexts(cases, op, Map.of());
    }

    private static void lineinfileCases(List<DiffCase> cases) {
        String m = "lineinfile";
        overTexts(cases, DiffCase.of(m, "line appended").args("path", "@/f", "line", "d"));
        overTexts(cases, DiffCase.of(m, "line already there").args("path", "@/f", "line", "b"));
        overTexts(cases, DiffCase.of(m, "last line already there").args("path", "@/f", "line", "c"));
        overTexts(cases, DiffCase.of(m, "regexp replaces").args("path", "@/f", "regexp", "^b", "line", "B"));
        overTexts(cases, DiffCase.of(m, "regexp with $ replaces").args("path", "@/f", "regexp", "^c$", "line", "C"));
        overTexts(cases, DiffCase.of(m, "regexp unmatched appends").args("path", "@/f", "regexp", "^x=", "line", "x=1"));
        overTexts(cases, DiffCase.of(m, "insertafter a line").args("path", "@/f", "line", "new", "insertafter", "^a"));
        overTexts(cases, DiffCase.of(m, "insertbefore a line").args("path", "@/f", "line", "new", "insertbefore", "^c"));
        overTexts(cases, DiffCase.of(m, "insertafter the last line").args("path", "@/f", "line", "new", "insertafter", "^c"),
                Map.of("no final newline", GLUED));
        overTexts(cases, DiffCase.of(m, "insertbefore BOF").args("path", "@/f", "line", "top", "insertbefore", "BOF"));
        overTexts(cases, DiffCase.of(m, "insertafter BOF").args("path", "@/f", "line", "top", "insertafter", "BOF"));
        overTexts(cases, DiffCase.of(m, "absent by line").args("path", "@/f", "line", "b", "state", "absent"));
        overTexts(cases, DiffCase.of(m, "absent of the last line").args("path", "@/f", "regexp", "^c", "state", "absent"));
        overTexts(cases, DiffCase.of(m, "backrefs").args("path", "@/f", "regexp", "^(b)$", "line", "\\1-x", "backrefs", true));
        overTexts(cases, DiffCase.of(m, "search_string replaces").args("path", "@/f", "search_string", "b", "line", "B2"));
        overTexts(cases, DiffCase.of(m, "firstmatch insertafter").args("path", "@/f", "line", "n", "insertafter", "^[ab]",
                "firstmatch", true));

        cases.add(DiffCase.of(m, "regexp replaces the last of several").with(file("f", "p=1\np=2\nq\n"))
                .args("path", "@/f", "regexp", "^p=", "line", "p=9"));
        cases.add(DiffCase.of(m, "firstmatch regexp replaces the first").with(file("f", "p=1\np=2\nq\n"))
                .args("path", "@/f", "regexp", "^p=", "line", "p=9", "firstmatch", true));
        cases.add(DiffCase.of(m, "backrefs without a match changes nothing").with(file("f", "a\n"))
                .args("path", "@/f", "regexp", "^(z)", "line", "\\1", "backrefs", true));
        cases.add(DiffCase.of(m, "absent by regexp removes every match").with(file("f", "#1\na\n#2\n"))
                .args("path", "@/f", "regexp", "^#", "state", "absent"));
        cases.add(DiffCase.of(m, "absent by search_string").with(file("f", "x foo y\nbar\n"))
                .args("path", "@/f", "search_string", "foo", "state", "absent"));
        cases.add(DiffCase.of(m, "missing file fails").args("path", "@/nope", "line", "a"));
        cases.add(DiffCase.of(m, "create a missing file").args("path", "@/new", "line", "a", "create", true));
        cases.add(DiffCase.of(m, "create with mode").args("path", "@/new", "line", "a", "create", true, "mode", "0600"));
        cases.add(DiffCase.of(m, "create in missing directories").args("path", "@/d1/d2/new", "line", "a", "create", true));
        cases.add(DiffCase.of(m, "absent on a missing file").args("path", "@/nope", "line", "a", "state", "absent"));
        cases.add(DiffCase.of(m, "path is a directory").with(dir("d")).args("path", "@/d", "line", "a"));
        cases.add(DiffCase.of(m, "through a relative symlink").with(file("real", "a\n"), link("f", "real"))
                .args("path", "@/f", "line", "b"));
        cases.add(DiffCase.of(m, "through an absolute symlink").with(file("real", "a\n"), link("f", "@/real"))
                .args("path", "@/f", "line", "b"));
        cases.add(DiffCase.of(m, "through a chain of symlinks").with(file("real", "a\n"), link("l1", "real"), link("f", "l1"))
                .args("path", "@/f", "regexp", "^a", "line", "A"));
        cases.add(DiffCase.of(m, "mode only").with(file("f", "a\n", "0644")).args("path", "@/f", "line", "a", "mode", "0600"));
        cases.add(DiffCase.of(m, "content keeps the mode").with(file("f", "a\n", "0640")).args("path", "@/f", "line", "b"));
        cases.add(DiffCase.of(m, "symbolic mode").with(file("f", "a\n", "0644")).args("path", "@/f", "line", "a", "mode", "u+x,g-r"));
        cases.add(DiffCase.of(m, "line with trailing spaces differs").with(file("f", "a  \n")).args("path", "@/f", "line", "a"));
        cases.add(DiffCase.of(m, "insertbefore unmatched appends").with(file("f", "a\n"))
                .args("path", "@/f", "line", "n", "insertbefore", "^zz"));
    }

    private static void blockinfileCases(List<DiffCase> cases) {
        String m = "blockinfile";
        overTexts(cases, DiffCase.of(m, "block appended").args("path", "@/f", "block", "x\ny"));
        overTexts(cases, DiffCase.of(m, "block with final newline").args("path", "@/f", "block", "x\ny\n"));
        overTexts(cases, DiffCase.of(m, "block at BOF").args("path", "@/f", "block", "x", "insertbefore", "BOF"));
        overTexts(cases, DiffCase.of(m, "block after a line").args("path", "@/f", "block", "x", "insertafter", "^a"));
        overTexts(cases, DiffCase.of(m, "block before a line").args("path", "@/f", "block", "x", "insertbefore", "^c"));
        overTexts(cases, DiffCase.of(m, "block after the last line").args("path", "@/f", "block", "x", "insertafter", "^c"));
        overTexts(cases, DiffCase.of(m, "multi-line insertafter").args("path", "@/f", "block", "x", "insertafter", "(?m)^a\\r?\\nb"));
        overTexts(cases, DiffCase.of(m, "multi-line insertbefore").args("path", "@/f", "block", "x", "insertbefore", "(?m)^b\\r?\\nc"));
        overTexts(cases, DiffCase.of(m, "absent without a block").args("path", "@/f", "state", "absent"),
                Map.of("no final newline", NOTHING_REMOVED));
        overTexts(cases, DiffCase.of(m, "custom marker").args("path", "@/f", "block", "x", "marker", "// {mark} ntp",
                "marker_begin", "start", "marker_end", "stop"));

        String withBlock = "a\n" + BLOCK_BEGIN + "old\n" + BLOCK_END + "z\n";
        cases.add(DiffCase.of(m, "block updated in place").with(file("f", withBlock)).args("path", "@/f", "block", "new"));
        cases.add(DiffCase.of(m, "block already there").with(file("f", withBlock)).args("path", "@/f", "block", "old"));
        cases.add(DiffCase.of(m, "block removed").with(file("f", withBlock)).args("path", "@/f", "state", "absent"));
        cases.add(DiffCase.of(m, "empty block removes").with(file("f", withBlock)).args("path", "@/f", "block", ""));
        cases.add(DiffCase.of(m, "existing block ignores insertbefore").with(file("f", withBlock))
                .args("path", "@/f", "block", "new", "insertbefore", "BOF"));
        cases.add(DiffCase.of(m, "block with markers swapped").with(file("f", "a\n" + BLOCK_END + "old\n" + BLOCK_BEGIN))
                .args("path", "@/f", "block", "new"));
        cases.add(DiffCase.of(m, "only a begin marker").with(file("f", "a\n" + BLOCK_BEGIN + "x\n")).args("path", "@/f", "block", "y"));
        cases.add(DiffCase.of(m, "end marker without final newline").with(file("f", "a\n" + BLOCK_BEGIN + "old\n" + BLOCK_END.strip()))
                .args("path", "@/f", "block", "old"));
        cases.add(DiffCase.of(m, "block followed by a line without newline").with(file("f", BLOCK_BEGIN + "old\n" + BLOCK_END + "z"))
                .args("path", "@/f", "block", "new"));
        cases.add(DiffCase.of(m, "two blocks with their own markers").with(file("f", withBlock))
                .args("path", "@/f", "block", "n", "marker", "# {mark} second"));
        cases.add(DiffCase.of(m, "provision's former default marker").with(file("f", "a\n# BEGIN MANAGED BLOCK\nold\n# END MANAGED BLOCK\nz\n"))
                .args("path", "@/f", "block", "new")
                .intendedBecause("provision takes over a block it wrote under its former default marker (# BEGIN MANAGED BLOCK)"
                        + " in place; Ansible does not know that marker and appends a second block"));
        cases.add(DiffCase.of(m, "CRLF block lines").with(file("f", "a\n")).args("path", "@/f", "block", "x\r\ny\r\n"));
        cases.add(DiffCase.of(m, "insertafter matching nothing appends").with(file("f", "a\n"))
                .args("path", "@/f", "block", "x", "insertafter", "^zz"));
        cases.add(DiffCase.of(m, "multi-line insertafter over three lines").with(file("f", "[s]\nk=1\nk=2\nend\n"))
                .args("path", "@/f", "block", "x", "insertafter", "(?m)^\\[s\\]\\n(k=.*\\n)+"));
        cases.add(DiffCase.of(m, "missing file fails").args("path", "@/nope", "block", "x"));
        cases.add(DiffCase.of(m, "create a missing file").args("path", "@/new", "block", "x", "create", true));
        cases.add(DiffCase.of(m, "create in missing directories").args("path", "@/d1/d2/new", "block", "x", "create", true));
        cases.add(DiffCase.of(m, "create with mode").args("path", "@/new", "block", "x", "create", true, "mode", "0600"));
        cases.add(DiffCase.of(m, "absent on a missing file").args("path", "@/nope", "state", "absent")
                .intendedBecause("Ansible's blockinfile fails on a missing file even with state=absent; for provision a"
                        + " missing file has no block, so there is nothing to remove (lineinfile agrees)"));
        cases.add(DiffCase.of(m, "path is a directory").with(dir("d")).args("path", "@/d", "block", "x"));
        cases.add(DiffCase.of(m, "through a symlink").with(file("real", "a\n"), link("f", "real")).args("path", "@/f", "block", "x"));
        cases.add(DiffCase.of(m, "through a symlink into another directory").with(file("sub/real", "a\n"), link("f", "sub/real"))
                .args("path", "@/f", "block", "x", "state", "present"));
        cases.add(DiffCase.of(m, "mode only").with(file("f", withBlock, "0644")).args("path", "@/f", "block", "old", "mode", "0600"));
    }

    private static void replaceCases(List<DiffCase> cases) {
        String m = "replace";
        overTexts(cases, DiffCase.of(m, "a line replaced").args("path", "@/f", "regexp", "^b$", "replace", "B"));
        overTexts(cases, DiffCase.of(m, "backreference").args("path", "@/f", "regexp", "^(b)$", "replace", "\\1-x"));
        overTexts(cases, DiffCase.of(m, "lines removed").args("path", "@/f", "regexp", "^a\\n"));
        overTexts(cases, DiffCase.of(m, "^ at every line and at the end").args("path", "@/f", "regexp", "^", "replace", "#"));
        overTexts(cases, DiffCase.of(m, "after").args("path", "@/f", "after", "b", "regexp", "^(.)$", "replace", "<\\1>"));
        overTexts(cases, DiffCase.of(m, "before").args("path", "@/f", "before", "c", "regexp", "^(.)$", "replace", "<\\g<1>>"));
        overTexts(cases, DiffCase.of(m, "after and before").args("path", "@/f", "after", "a", "before", "c", "regexp", "^(.)$",
                "replace", "<\\1>"));
        overTexts(cases, DiffCase.of(m, "after matching nothing").args("path", "@/f", "after", "zzz", "regexp", "b", "replace", "B"));

        cases.add(DiffCase.of(m, "a dollar is a plain dollar").with(file("f", "x=1\n"))
                .args("path", "@/f", "regexp", "^x=.*$", "replace", "x=$HOME $1 \\g<0>"));
        cases.add(DiffCase.of(m, "named groups").with(file("f", "ListenAddress 10.0.0.1\n"))
                .args("path", "@/f", "regexp", "^(?P<key>ListenAddress[ ]+)(?P<host>[^\\n]+)$", "replace", "#\\g<key>\\g<host>\\n\\g<key>0.0.0.0"));
        cases.add(DiffCase.of(m, "the same text changes nothing").with(file("f", "a\na\n")).args("path", "@/f", "regexp", "a", "replace", "a"));
        cases.add(DiffCase.of(m, "\\Z is the very end").with(file("f", "a\n\n")).args("path", "@/f", "regexp", "\\n\\Z"));
        cases.add(DiffCase.of(m, "after with (?m)").with(file("f", "[a]\nk=1\n[b]\nk=1\n"))
                .args("path", "@/f", "after", "(?m)^\\[b\\]$", "regexp", "^k=1$", "replace", "k=2"));
        cases.add(DiffCase.of(m, "a group the regexp lacks fails").with(file("f", "x\n")).args("path", "@/f", "regexp", "(a)", "replace", "\\2"));
        cases.add(DiffCase.of(m, "missing file fails").args("path", "@/nope", "regexp", "a"));
        cases.add(DiffCase.of(m, "path is a directory").with(dir("d")).args("path", "@/d", "regexp", "a"));
        cases.add(DiffCase.of(m, "through a symlink").with(file("real", "a\n"), link("f", "real"))
                .args("path", "@/f", "regexp", "a", "replace", "b"));
        cases.add(DiffCase.of(m, "mode only").with(file("f", "a\n", "0644")).args("path", "@/f", "regexp", "z", "mode", "0600"));
        cases.add(DiffCase.of(m, "content keeps the mode").with(file("f", "a\n", "0640")).args("path", "@/f", "regexp", "a", "replace", "b"));
        cases.add(DiffCase.of(m, "content and mode").with(file("f", "a\n", "0644")).args("path", "@/f", "regexp", "a", "replace", "b",
                "mode", "0600"));
        cases.add(DiffCase.of(m, "after matching nothing, with a mode").with(file("f", "a\n", "0644"))
                .args("path", "@/f", "after", "zzz", "regexp", "a", "replace", "b", "mode", "0600")
                .intendedBecause("Ansible's replace returns before setting the attributes when after/before match nothing;"
                        + " provision still gives the file the mode the task asks for"));
        cases.add(DiffCase.of(m, "validate refuses").with(file("f", "a\n")).args("path", "@/f", "regexp", "a", "replace", "b",
                "validate", "grep -q nope %s"));
        cases.add(DiffCase.of(m, "backup").with(file("f", "a\n", "0640")).args("path", "@/f", "regexp", "a", "replace", "b", "backup", true));
    }

    private static void copyCases(List<DiffCase> cases) {
        String m = "copy";
        cases.add(DiffCase.of(m, "content to a new file").args("dest", "@/f", "content", "hello\n"));
        cases.add(DiffCase.of(m, "content without final newline").args("dest", "@/f", "content", "hello"));
        cases.add(DiffCase.of(m, "CRLF content").args("dest", "@/f", "content", "a\r\nb\r\n"));
        cases.add(DiffCase.of(m, "empty content").args("dest", "@/f", "content", ""));
        cases.add(DiffCase.of(m, "same content").with(file("f", "hello\n")).args("dest", "@/f", "content", "hello\n"));
        cases.add(DiffCase.of(m, "other content").with(file("f", "old\n")).args("dest", "@/f", "content", "new\n"));
        cases.add(DiffCase.of(m, "other content keeps the mode").with(file("f", "old\n", "0600")).args("dest", "@/f", "content", "new\n"));
        cases.add(DiffCase.of(m, "mode of a new file").args("dest", "@/f", "content", "x\n", "mode", "0600"));
        cases.add(DiffCase.of(m, "mode only").with(file("f", "x\n", "0644")).args("dest", "@/f", "content", "x\n", "mode", "0640"));
        cases.add(DiffCase.of(m, "symbolic mode of a new file").args("dest", "@/f", "content", "x\n", "mode", "u=rw,g=r,o="));
        cases.add(DiffCase.of(m, "symbolic mode of an existing file").with(file("f", "x\n", "0600"))
                .args("dest", "@/f", "content", "x\n", "mode", "go+r"));
        cases.add(DiffCase.of(m, "force=false keeps a file").with(file("f", "old\n")).args("dest", "@/f", "content", "new\n", "force", false));
        cases.add(DiffCase.of(m, "force=false writes a missing file").args("dest", "@/f", "content", "new\n", "force", false));
        cases.add(DiffCase.of(m, "missing directory fails").args("dest", "@/nope/f", "content", "x\n"));
        cases.add(DiffCase.of(m, "content into a directory fails").with(dir("d")).args("dest", "@/d", "content", "x\n"));
        cases.add(DiffCase.of(m, "content to dest/ fails").args("dest", "@/d/", "content", "x\n"));
        cases.add(DiffCase.of(m, "symlink replaced by a file").with(file("real", "old\n"), link("f", "real"))
                .args("dest", "@/f", "content", "new\n"));
        cases.add(DiffCase.of(m, "symlink with the same content replaced too").with(file("real", "same\n"), link("f", "real"))
                .args("dest", "@/f", "content", "same\n"));
        cases.add(DiffCase.of(m, "follow writes through a symlink").with(file("real", "old\n"), link("f", "real"))
                .args("dest", "@/f", "content", "new\n", "follow", true));
        cases.add(DiffCase.of(m, "follow with the same content").with(file("real", "same\n"), link("f", "real"))
                .args("dest", "@/f", "content", "same\n", "follow", true));
        cases.add(DiffCase.of(m, "dangling symlink replaced").with(link("f", "missing")).args("dest", "@/f", "content", "x\n"));
        cases.add(DiffCase.of(m, "src to a new file").controller("src1.txt", "from src\n", "0644").args("dest", "@/f", "src", "src1.txt"));
        cases.add(DiffCase.of(m, "src into an existing directory").with(dir("d")).controller("src2.txt", "s2\n", "0644")
                .args("dest", "@/d", "src", "src2.txt"));
        cases.add(DiffCase.of(m, "src into dest/ that exists").with(dir("d")).controller("src3.txt", "s3\n", "0644")
                .args("dest", "@/d/", "src", "src3.txt"));
        cases.add(DiffCase.of(m, "src into dest/ that is missing").controller("src4.txt", "s4\n", "0644")
                .args("dest", "@/d/", "src", "src4.txt"));
        cases.add(DiffCase.of(m, "src into nested dest/ that is missing").controller("src5.txt", "s5\n", "0644")
                .args("dest", "@/d1/d2/", "src", "src5.txt"));
        cases.add(DiffCase.of(m, "mode=preserve").controller("src6.sh", "#!/bin/sh\n", "0750")
                .args("dest", "@/f", "src", "src6.sh", "mode", "preserve"));
        cases.add(DiffCase.of(m, "src without final newline").controller("src7.txt", "no newline", "0644")
                .args("dest", "@/f", "src", "src7.txt"));
        cases.add(DiffCase.of(m, "src over a different file").with(file("f", "old\n", "0600")).controller("src8.txt", "new\n", "0644")
                .args("dest", "@/f", "src", "src8.txt"));
    }

    private static void templateCases(List<DiffCase> cases) {
        String m = "template";
        cases.add(DiffCase.of(m, "to a new file").controller("t1.conf", "key = value\n", "0644").args("dest", "@/f", "src", "t1.conf"));
        cases.add(DiffCase.of(m, "same content").with(file("f", "k\n")).controller("t2.conf", "k\n", "0644").args("dest", "@/f", "src", "t2.conf"));
        cases.add(DiffCase.of(m, "other content keeps the mode").with(file("f", "old\n", "0600")).controller("t3.conf", "new\n", "0644")
                .args("dest", "@/f", "src", "t3.conf"));
        cases.add(DiffCase.of(m, "without final newline").controller("t4.conf", "no newline", "0644").args("dest", "@/f", "src", "t4.conf"));
        cases.add(DiffCase.of(m, "with two final newlines").controller("t5.conf", "x\n\n", "0644").args("dest", "@/f", "src", "t5.conf"));
        cases.add(DiffCase.of(m, "CRLF template becomes LF").controller("t6.conf", "a\r\nb\r\n", "0644").args("dest", "@/f", "src", "t6.conf"));
        cases.add(DiffCase.of(m, "newline_sequence CRLF").controller("t7.conf", "a\nb\n", "0644")
                .args("dest", "@/f", "src", "t7.conf", "newline_sequence", "\\r\\n"));
        cases.add(DiffCase.of(m, "into an existing directory").with(dir("d")).controller("t8.conf", "t8\n", "0644")
                .args("dest", "@/d", "src", "t8.conf"));
        cases.add(DiffCase.of(m, "into dest/ that is missing").controller("t9.conf", "t9\n", "0644").args("dest", "@/d/", "src", "t9.conf"));
        cases.add(DiffCase.of(m, "symlink replaced by a file").with(file("real", "old\n"), link("f", "real"))
                .controller("t10.conf", "new\n", "0644").args("dest", "@/f", "src", "t10.conf"));
        cases.add(DiffCase.of(m, "follow writes through a symlink").with(file("real", "old\n"), link("f", "real"))
                .controller("t11.conf", "new\n", "0644").args("dest", "@/f", "src", "t11.conf", "follow", true));
        cases.add(DiffCase.of(m, "mode").controller("t12.conf", "x\n", "0644").args("dest", "@/f", "src", "t12.conf", "mode", "0600"));
        cases.add(DiffCase.of(m, "force=false keeps a file").with(file("f", "old\n")).controller("t13.conf", "new\n", "0644")
                .args("dest", "@/f", "src", "t13.conf", "force", false));
        cases.add(DiffCase.of(m, "missing directory fails").controller("t14.conf", "x\n", "0644").args("dest", "@/nope/f", "src", "t14.conf"));
    }

    private static void fileCases(List<DiffCase> cases) {
        String m = "file";
        cases.add(DiffCase.of(m, "directory created").args("path", "@/d", "state", "directory"));
        cases.add(DiffCase.of(m, "nested directories with mode").args("path", "@/d1/d2/d3", "state", "directory", "mode", "0700"));
        cases.add(DiffCase.of(m, "nested directories, symbolic mode").args("path", "@/d1/d2", "state", "directory", "mode", "u=rwx,g=rx,o="));
        cases.add(DiffCase.of(m, "existing directory").with(dir("d")).args("path", "@/d", "state", "directory"));
        cases.add(DiffCase.of(m, "existing directory, other mode").with(dir("d")).args("path", "@/d", "state", "directory", "mode", "0750"));
        cases.add(DiffCase.of(m, "directory where a file is").with(file("d", "x")).args("path", "@/d", "state", "directory"));
        cases.add(DiffCase.of(m, "directory through a symlink").with(dir("real"), link("d", "real"))
                .args("path", "@/d", "state", "directory", "mode", "0700"));
        cases.add(DiffCase.of(m, "absent file").with(file("f", "x")).args("path", "@/f", "state", "absent"));
        cases.add(DiffCase.of(m, "absent directory tree").with(file("d/e/f", "x")).args("path", "@/d", "state", "absent"));
        cases.add(DiffCase.of(m, "absent missing").args("path", "@/f", "state", "absent"));
        cases.add(DiffCase.of(m, "absent symlink keeps its target").with(file("real", "x"), link("f", "real"))
                .args("path", "@/f", "state", "absent"));
        cases.add(DiffCase.of(m, "link created").with(file("real", "x")).args("path", "@/l", "src", "real", "state", "link"));
        cases.add(DiffCase.of(m, "link already right").with(file("real", "x"), link("l", "real"))
                .args("path", "@/l", "src", "real", "state", "link"));
        cases.add(DiffCase.of(m, "link repointed").with(file("real", "x"), file("other", "y"), link("l", "real"))
                .args("path", "@/l", "src", "other", "state", "link"));
        cases.add(DiffCase.of(m, "link to a missing src fails").args("path", "@/l", "src", "@/missing", "state", "link"));
        cases.add(DiffCase.of(m, "link to a missing src with force").args("path", "@/l", "src", "missing", "state", "link", "force", true));
        cases.add(DiffCase.of(m, "link over a file with force").with(file("real", "x"), file("l", "y"))
                .args("path", "@/l", "src", "real", "state", "link", "force", true));
        cases.add(DiffCase.of(m, "file mode").with(file("f", "x", "0644")).args("path", "@/f", "mode", "0600"));
        cases.add(DiffCase.of(m, "file mode already right").with(file("f", "x", "0600")).args("path", "@/f", "mode", "0600"));
        cases.add(DiffCase.of(m, "file missing fails").args("path", "@/f", "state", "file"));
        cases.add(DiffCase.of(m, "file that is a directory fails").with(dir("d")).args("path", "@/d", "state", "file", "mode", "0700"));
        cases.add(DiffCase.of(m, "symbolic u+x").with(file("f", "x", "0644")).args("path", "@/f", "mode", "u+x"));
        cases.add(DiffCase.of(m, "symbolic go-rwx").with(file("f", "x", "0644")).args("path", "@/f", "mode", "go-rwx"));
        cases.add(DiffCase.of(m, "symbolic a=r").with(file("f", "x", "0755")).args("path", "@/f", "mode", "a=r"));
        cases.add(DiffCase.of(m, "symbolic u=rwX on a file").with(file("f", "x", "0600")).args("path", "@/f", "mode", "u=rwX,g=rX,o=rX"));
        cases.add(DiffCase.of(m, "symbolic u=rwX on an executable").with(file("f", "x", "0700")).args("path", "@/f", "mode", "u=rwX,g=rX,o=rX"));
        cases.add(DiffCase.of(m, "symbolic g=u").with(file("f", "x", "0640")).args("path", "@/f", "mode", "g=u"));
        cases.add(DiffCase.of(m, "symbolic on a directory").with(dir("d")).args("path", "@/d", "state", "directory", "mode", "o-rx"));
        cases.add(DiffCase.of(m, "mode through a symlink").with(file("real", "x", "0644"), link("f", "real")).args("path", "@/f", "mode", "0600"));
        cases.add(DiffCase.of(m, "touch a new file").args("path", "@/f", "state", "touch").intendedBecause(TOUCH));
        cases.add(DiffCase.of(m, "touch a new file with mode").args("path", "@/f", "state", "touch", "mode", "0600")
                .intendedBecause(TOUCH));
        cases.add(DiffCase.of(m, "touch an existing file").with(file("f", "x")).args("path", "@/f", "state", "touch")
                .intendedBecause(TOUCH));
    }

    private static final String SYMLINK_AT_DEST = "Ansible's state=hard leaves a symlink that already points to src and reports ok;"
            + " provision replaces it with the hard link that state=hard asks for";
    private static final String NEW_PARENT_MODE = "copy remote_src of a directory without a trailing slash to a missing dest:"
            + " Ansible gives mode to dest and leaves the copied directory dest/d at the default; provision gives it to"
            + " dest/d, the copied directory, as when dest exists (and as Ansible's own second run then does too)";

    /** {@code file state=hard}: one file, two names. */
    private static void hardLinkCases(List<DiffCase> cases) {
        String m = "file";
        cases.add(DiffCase.of(m, "hard link created").with(file("f", "x\n")).args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link already the same inode").with(file("f", "x\n"), hardLink("l", "f"))
                .args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link over a file fails").with(file("f", "x\n"), file("l", "y\n"))
                .args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link over a file with force").with(file("f", "x\n"), file("l", "y\n", "0600"))
                .args("path", "@/l", "src", "@/f", "state", "hard", "force", true));
        cases.add(DiffCase.of(m, "hard link over a file of the same content fails").with(file("f", "x\n"), file("l", "x\n"))
                .args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link over another hard link fails").with(file("f", "x\n"), file("g", "y\n"), hardLink("l", "g"))
                .args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link over another hard link with force").with(file("f", "x\n"), file("g", "y\n"), hardLink("l", "g"))
                .args("path", "@/l", "src", "@/f", "state", "hard", "force", true));
        cases.add(DiffCase.of(m, "hard link to a missing src fails").args("path", "@/l", "src", "@/missing", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link to a missing src over a file fails").with(file("l", "y\n"))
                .args("path", "@/l", "src", "@/missing", "state", "hard", "force", true));
        cases.add(DiffCase.of(m, "hard link to a directory fails").with(dir("d")).args("path", "@/l", "src", "@/d", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link in a missing directory fails").with(file("f", "x\n"))
                .args("path", "@/nope/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link into a directory").with(file("f", "x\n"), dir("d"))
                .args("path", "@/d", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link with mode").with(file("f", "x\n", "0644"))
                .args("path", "@/l", "src", "@/f", "state", "hard", "mode", "0600"));
        cases.add(DiffCase.of(m, "hard link already there, other mode").with(file("f", "x\n", "0644"), hardLink("l", "f"))
                .args("path", "@/l", "src", "@/f", "state", "hard", "mode", "0640"));
        cases.add(DiffCase.of(m, "hard link replaces a symlink elsewhere").with(file("f", "x\n"), file("g", "y\n"), link("l", "g"))
                .args("path", "@/l", "src", "@/f", "state", "hard"));
        cases.add(DiffCase.of(m, "hard link where a symlink to src is").with(file("f", "x\n"), link("l", "@/f"))
                .args("path", "@/l", "src", "@/f", "state", "hard").intendedBecause(SYMLINK_AT_DEST));
        cases.add(DiffCase.of(m, "hard link where a directory is fails").with(file("f", "x\n"), dir("l"), dir("l/f"))
                .args("path", "@/l", "src", "@/f", "state", "hard", "force", true));
    }

    /** {@code copy remote_src=true}: a file or a directory of the managed host, copied there. */
    private static void remoteSrcCases(List<DiffCase> cases) {
        String m = "copy";
        cases.add(DiffCase.of(m, "remote_src file to a new file").with(file("s", "from host\n", "0750"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file, same content").with(file("s", "same\n"), file("f", "same\n", "0600"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file, same size other content").with(file("s", "abc\n"), file("f", "xyz\n", "0640"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file, other content keeps the mode").with(file("s", "new\n"), file("f", "older\n", "0600"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file with mode").with(file("s", "x\n"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "mode", "0600"));
        cases.add(DiffCase.of(m, "remote_src file, mode only").with(file("s", "x\n"), file("f", "x\n", "0644"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "mode", "0640"));
        cases.add(DiffCase.of(m, "remote_src file, symbolic mode").with(file("s", "x\n"), file("f", "y\n", "0600"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "mode", "g+r"));
        cases.add(DiffCase.of(m, "remote_src file, mode=preserve").with(file("s", "#!/bin/sh\n", "0750"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "mode", "preserve"));
        cases.add(DiffCase.of(m, "remote_src file into an existing directory").with(file("s", "x\n"), dir("d"))
                .args("src", "@/s", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file into dest/ that is missing").with(file("s", "x\n"))
                .args("src", "@/s", "dest", "@/d/", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src missing src fails").args("src", "@/nope", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src file into a missing directory fails").with(file("s", "x\n"))
                .args("src", "@/s", "dest", "@/nope/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src replaces a symlink").with(file("s", "x\n"), file("real", "old\n"), link("f", "real"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src follow writes through a symlink").with(file("s", "x\n"), file("real", "old\n"), link("f", "real"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "follow", true));
        cases.add(DiffCase.of(m, "remote_src force=false keeps a file").with(file("s", "x\n"), file("f", "old\n"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "force", false));
        cases.add(DiffCase.of(m, "remote_src file with owner and group").with(file("s", "x\n"))
                .args("src", "@/s", "dest", "@/f", "remote_src", true, "owner", "nobody", "group", "nogroup"));

        List<DiffCase.Start> tree = List.of(dir("s"), file("s/a", "a\n", "0644"), file("s/run.sh", "#!/bin/sh\n", "0755"),
                dir("s/sub", "0700"), file("s/sub/secret", "k\n", "0600"), dir("s/sub/deeper", "0750"), file("s/sub/deeper/z", "z\n", "0640"));
        cases.add(DiffCase.of(m, "remote_src dir into an existing directory").with(tree.toArray(DiffCase.Start[]::new)).with(dir("d"))
                .args("src", "@/s", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir/ into an existing directory").with(tree.toArray(DiffCase.Start[]::new)).with(dir("d"))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir/ to a missing dest").with(tree.toArray(DiffCase.Start[]::new))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir to a missing dest").with(tree.toArray(DiffCase.Start[]::new))
                .args("src", "@/s", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir of mode 0700 into an existing directory").with(dir("s", "0700"), file("s/a", "a\n"), dir("d"))
                .args("src", "@/s", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir/ merges into a tree").with(tree.toArray(DiffCase.Start[]::new))
                .with(dir("d"), file("d/a", "a\n", "0600"), file("d/run.sh", "old\n", "0644"), file("d/extra", "mine\n"),
                        dir("d/sub", "0755"), file("d/sub/secret", "K\n", "0644"))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir/ already copied").with(dir("s"), file("s/a", "a\n"), dir("s/sub"), file("s/sub/b", "b\n"),
                        dir("d"), file("d/a", "a\n"), dir("d/sub"), file("d/sub/b", "b\n"))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true));
        cases.add(DiffCase.of(m, "remote_src dir/ with mode").with(tree.toArray(DiffCase.Start[]::new)).with(dir("d"))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true, "mode", "0750"));
        cases.add(DiffCase.of(m, "remote_src dir/ with owner and group").with(tree.toArray(DiffCase.Start[]::new))
                .with(dir("d"), file("d/mine", "m\n"))
                .args("src", "@/s/", "dest", "@/d", "remote_src", true, "owner", "nobody", "group", "nogroup"));
        cases.add(DiffCase.of(m, "remote_src dir to a missing dest with mode").with(dir("s"), file("s/a", "a\n"))
                .args("src", "@/s", "dest", "@/d", "remote_src", true, "mode", "0700").intendedBecause(NEW_PARENT_MODE));
    }

    /** {@code file state=directory recurse=true}: the attributes of a whole tree. */
    private static void recurseCases(List<DiffCase> cases) {
        String m = "file";
        List<DiffCase.Start> tree = List.of(dir("t"), file("t/a", "a\n", "0644"), file("t/run.sh", "#!/bin/sh\n", "0755"),
                dir("t/sub", "0700"), file("t/sub/secret", "k\n", "0600"), dir("t/sub/deeper", "0755"), file("t/sub/deeper/z", "z\n", "0666"));
        DiffCase.Start[] start = tree.toArray(DiffCase.Start[]::new);
        cases.add(DiffCase.of(m, "recurse octal mode").with(start).args("path", "@/t", "state", "directory", "recurse", true, "mode", "0750"));
        cases.add(DiffCase.of(m, "recurse u=rwX,g=rX,o=").with(start)
                .args("path", "@/t", "state", "directory", "recurse", true, "mode", "u=rwX,g=rX,o="));
        cases.add(DiffCase.of(m, "recurse a+rX").with(start).args("path", "@/t", "state", "directory", "recurse", true, "mode", "a+rX"));
        cases.add(DiffCase.of(m, "recurse go-rwx").with(start).args("path", "@/t", "state", "directory", "recurse", true, "mode", "go-rwx"));
        cases.add(DiffCase.of(m, "recurse g=u,o-w").with(start).args("path", "@/t", "state", "directory", "recurse", true, "mode", "g=u,o-w"));
        cases.add(DiffCase.of(m, "recurse already right").with(dir("t", "0750"), file("t/a", "a\n", "0750"), dir("t/sub", "0750"),
                file("t/sub/b", "b\n", "0750")).args("path", "@/t", "state", "directory", "recurse", true, "mode", "0750"));
        cases.add(DiffCase.of(m, "recurse changes only what differs").with(dir("t", "0755"), file("t/a", "a\n", "0644"),
                file("t/b", "b\n", "0600")).args("path", "@/t", "state", "directory", "recurse", true, "mode", "u=rwX,go=rX"));
        cases.add(DiffCase.of(m, "recurse owner and group").with(start)
                .args("path", "@/t", "state", "directory", "recurse", true, "owner", "nobody", "group", "nogroup"));
        cases.add(DiffCase.of(m, "recurse without attributes").with(start).args("path", "@/t", "state", "directory", "recurse", true));
        cases.add(DiffCase.of(m, "recurse on a missing directory").args("path", "@/t", "state", "directory", "recurse", true, "mode", "0700"));
        cases.add(DiffCase.of(m, "recurse with state=file fails").with(start).args("path", "@/t", "state", "file", "recurse", true, "mode", "0700"));
        cases.add(DiffCase.of(m, "recurse follows a link to a file").with(dir("t"), file("t/a", "a\n", "0644"), file("out", "o\n", "0644"),
                link("t/l", "../out")).args("path", "@/t", "state", "directory", "recurse", true, "mode", "0600"));
        cases.add(DiffCase.of(m, "recurse follow=false leaves a link's target").with(dir("t"), file("t/a", "a\n", "0644"),
                file("out", "o\n", "0644"), link("t/l", "../out"))
                .args("path", "@/t", "state", "directory", "recurse", true, "mode", "0600", "follow", false));
        cases.add(DiffCase.of(m, "recurse into a linked directory").with(dir("t"), file("t/a", "a\n", "0644"), dir("o"),
                file("o/b", "b\n", "0644"), link("t/l", "../o")).args("path", "@/t", "state", "directory", "recurse", true, "mode", "u=rwX,g=rX,o="));
        cases.add(DiffCase.of(m, "recurse with a dangling link").with(dir("t"), file("t/a", "a\n", "0644"), link("t/l", "missing"))
                .args("path", "@/t", "state", "directory", "recurse", true, "mode", "0640"));
        cases.add(DiffCase.of(m, "recurse through a symlinked top").with(dir("real"), file("real/a", "a\n", "0644"), link("t", "real"))
                .args("path", "@/t", "state", "directory", "recurse", true, "mode", "0700"));
    }

    /** {@code validate} and {@code backup}, which every content-writing module takes. */
    private static void checksAndBackupsCases(List<DiffCase> cases) {
        cases.add(DiffCase.of("lineinfile", "validate accepts").with(file("f", "a\n"))
                .args("path", "@/f", "line", "d", "validate", "grep -q d %s"));
        cases.add(DiffCase.of("lineinfile", "validate refuses").with(file("f", "a\n"))
                .args("path", "@/f", "line", "d", "validate", "grep -q nope %s"));
        cases.add(DiffCase.of("blockinfile", "validate refuses").with(file("f", "a\n"))
                .args("path", "@/f", "block", "x", "validate", "grep -q nope %s"));
        cases.add(DiffCase.of("blockinfile", "validate with a quoted word").with(file("f", "a\n"))
                .args("path", "@/f", "block", "x y", "validate", "grep -q 'x y' %s"));
        cases.add(DiffCase.of("copy", "validate refuses").with(file("f", "old\n"))
                .args("dest", "@/f", "content", "new\n", "validate", "grep -q nope %s"));
        cases.add(DiffCase.of("copy", "validate accepts a new file").args("dest", "@/f", "content", "new\n", "validate", "grep -q new %s"));
        cases.add(DiffCase.of("template", "validate refuses").with(file("f", "old\n")).controller("v1.conf", "new\n", "0644")
                .args("dest", "@/f", "src", "v1.conf", "validate", "grep -q nope %s"));
        cases.add(DiffCase.of("lineinfile", "backup").with(file("f", "a\n", "0640")).args("path", "@/f", "line", "b", "backup", true));
        cases.add(DiffCase.of("lineinfile", "backup of a converged file").with(file("f", "a\n")).args("path", "@/f", "line", "a", "backup", true));
        cases.add(DiffCase.of("lineinfile", "backup of a created file").args("path", "@/f", "line", "a", "create", true, "backup", true));
        cases.add(DiffCase.of("blockinfile", "backup").with(file("f", "a\n")).args("path", "@/f", "block", "x", "backup", true));
        cases.add(DiffCase.of("copy", "backup").with(file("f", "old\n")).args("dest", "@/f", "content", "new\n", "backup", true));
        cases.add(DiffCase.of("template", "backup").with(file("f", "old\n")).controller("b1.conf", "new\n", "0644")
                .args("dest", "@/f", "src", "b1.conf", "backup", true));
    }
}
