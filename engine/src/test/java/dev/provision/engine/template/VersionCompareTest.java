package dev.provision.engine.template;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.provision.engine.source.SourcePosition;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VersionCompareTest {
    private static final TemplateEngine ENGINE = new TemplateEngine(List.of());

    @Test
    void splitsAsLooseVersionDoes() {
        assertEquals(List.of(BigInteger.valueOf(1), BigInteger.valueOf(9), "rc", BigInteger.ONE), VersionCompare.components("1.9rc1"));
        assertEquals(List.of(BigInteger.valueOf(535), BigInteger.valueOf(104), BigInteger.valueOf(5)),
                VersionCompare.components("535.104.05"));
        assertEquals(List.of(BigInteger.ONE, "RC", BigInteger.TWO), VersionCompare.components("1RC2"), "upper case lies between");
    }

    @Test
    void comparesNumbersAsNumbersAndAShorterPrefixAsOlder() throws Exception {
        assertEquals(1, VersionCompare.compare("1.10", "1.9"));
        assertEquals(0, VersionCompare.compare("550", "550"));
        assertEquals(-1, VersionCompare.compare("12.2", "12.2.0"));
        assertEquals(-1, VersionCompare.compare("1.0a", "1.0b"));
        assertThrows(freemarker.template.TemplateModelException.class, () -> VersionCompare.compare("1.0", "1.a"));
    }

    @Test
    void isCalledFromConditions() throws Exception {
        assertTrue(ENGINE.test("version_compare(driver, \"535\") >= 0", Map.of("driver", "550.54.15"),
                SourcePosition.UNKNOWN));
        TemplateException e = assertThrows(TemplateException.class, () -> ENGINE.test(
                "version_compare(driver, \"1.a\") >= 0", Map.of("driver", "1.0"), SourcePosition.UNKNOWN));
        assertTrue(e.getMessage().contains("cannot compare '1.0' with '1.a'"), e.getMessage());
    }
}
