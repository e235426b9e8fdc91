package dev.provision.modules.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class FileStatTest {
    @Test
    void octalIsWhatFourDigitOctalFormattingGives() {
        for (int bits : new int[] {0, 07, 0644, 0755, 01777, 04755, 07777, 010000, 0100644, Integer.MAX_VALUE, -1}) {
            assertEquals(String.format("%04o", bits), FileStat.octal(bits), "bits " + bits);
        }
        for (int bits = 0; bits <= 07777; bits++) {
            assertEquals(String.format("%04o", bits), FileStat.octal(bits));
        }
    }
}
