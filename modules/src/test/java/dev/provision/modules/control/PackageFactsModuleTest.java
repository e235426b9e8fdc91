package dev.provision.modules.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PackageFactsModuleTest {
    @Test
    void readsInstalledDebianPackagesOnly() {
        Map<String, Object> p = PackageFactsModule.parse("--- apt\nii \tnfs-common\t1:2.6.2-4\tamd64\nrc \told-tool\t1.0\tamd64\n"
                + "ii \tlibc6\t2.36-9\tamd64\nii \tlibc6\t2.36-9\ti386\n");
        assertEquals(List.of(Map.of("name", "nfs-common", "version", "1:2.6.2-4", "arch", "amd64", "source", "apt")), p.get("nfs-common"));
        assertEquals(2, ((List<?>) p.get("libc6")).size(), "one entry per architecture installed");
        assertEquals(null, p.get("old-tool"), "removed, config files left: not installed");
    }

    @Test
    void readsRpmPackagesWithReleaseAndEpoch() {
        Map<String, Object> p = PackageFactsModule.parse("--- rpm\nnfs-utils\t2.5.4\t18.el9\t1\tx86_64\nbash\t5.1.8\t6.el9\t(none)\tx86_64\n");
        assertEquals(List.of(Map.of("name", "nfs-utils", "version", "2.5.4", "release", "18.el9", "epoch", "1", "arch", "x86_64",
                "source", "rpm")), p.get("nfs-utils"));
        assertEquals(List.of(Map.of("name", "bash", "version", "5.1.8", "release", "6.el9", "arch", "x86_64", "source", "rpm")), p.get("bash"));
    }
}
