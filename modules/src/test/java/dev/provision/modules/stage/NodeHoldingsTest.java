package dev.provision.modules.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class NodeHoldingsTest {
    private static final String OTHER = "1111111111111111111111111111111111111111111111111111111111111111\t5\t600\t1700000001\tb.bin";
    private static final Manifest MANIFEST = Manifest.parse(ManifestTest.LINE + "\n" + OTHER + "\n");
    /** survey.sh's output on a real directory holding dir/a b.bin (with find's fractional mtime). */
    private static final String SURVEY = "space\t80727945216\t16317402\t16777216\nfile\t3\t644\t1700000000.0000000000\tdir/a b.bin\n";

    @Test
    void parsesSpaceFilesAndRecord() {
        NodeHoldings h = NodeHoldings.parse(SURVEY + "verified\t" + ManifestTest.LINE + "\n");

        assertEquals(80727945216L, h.freeBytes());
        assertEquals(16317402L, h.freeInodes());
        assertEquals(16777216L, h.totalInodes());
        assertEquals("3\t644\t1700000000", h.files().get("dir/a b.bin"));
        assertEquals(java.util.Set.of(ManifestTest.LINE), h.verified());
        assertFalse(h.notDirectory());
    }

    @Test
    void aFreshNodeLacksEveryFile() {
        NodeHoldings.Needs needs = NodeHoldings.parse("space\t100\t0\t0\n").needs(MANIFEST);

        assertEquals(MANIFEST.entries(), needs.missing());
        assertEquals(8, needs.missingBytes());
        assertFalse(needs.complete());
    }

    @Test
    void aFileWithTheManifestsSizeModeAndMtimeButNotInTheRecordIsHashedNotFetched() {
        NodeHoldings.Needs needs = NodeHoldings.parse(SURVEY).needs(MANIFEST);

        assertEquals(List.of(MANIFEST.entries().get(1)), needs.missing());
        assertEquals(List.of(MANIFEST.entries().get(0)), needs.unverified());
    }

    @Test
    void aRecordedFileThatChangedSizeOrVanishedIsFetchedAgain() {
        NodeHoldings.Needs needs = NodeHoldings.parse("space\t100\t0\t0\nfile\t4\t644\t1700000000.5\tdir/a b.bin\n"
                + "verified\t" + ManifestTest.LINE + "\nverified\t" + OTHER + "\n").needs(MANIFEST);

        assertEquals(MANIFEST.entries(), needs.missing());
        assertTrue(needs.recordCurrent());
        assertFalse(needs.complete());
    }

    @Test
    void completeOnlyWhenEveryFileIsHeldAndTheRecordIsThisManifest() {
        String both = SURVEY + "file\t5\t600\t1700000001.25\tb.bin\n";
        assertTrue(NodeHoldings.parse(both + "verified\t" + ManifestTest.LINE + "\nverified\t" + OTHER + "\n").needs(MANIFEST).complete());
        NodeHoldings.Needs olderRecord = NodeHoldings.parse(both + "verified\t" + ManifestTest.LINE + "\nverified\t" + OTHER + "\n"
                + "verified\t" + OTHER.replace("b.bin", "gone.bin") + "\n").needs(MANIFEST);
        assertTrue(olderRecord.missing().isEmpty() && olderRecord.unverified().isEmpty());
        assertFalse(olderRecord.complete(), "a record of another manifest is rewritten");
    }

    @Test
    void againstAListingTheRecordVouchesByPathSizeModeAndMtimeAndIsTheManifestWhenItCoversAll() {
        Manifest listing = Manifest.parse(ManifestTest.LINE.replaceFirst("^[0-9a-f]{64}", "-") + "\n" + OTHER.replaceFirst("^[0-9a-f]{64}", "-") + "\n");
        String both = SURVEY + "file\t5\t600\t1700000001.25\tb.bin\n";

        NodeHoldings.Needs all = NodeHoldings.parse(both + "verified\t" + ManifestTest.LINE + "\nverified\t" + OTHER + "\n").needs(listing);
        assertTrue(all.complete());
        assertEquals(MANIFEST.text(), all.record().orElseThrow().text(), "its record, in the listing's order: the root it holds");

        NodeHoldings.Needs one = NodeHoldings.parse(both + "verified\t" + ManifestTest.LINE + "\n").needs(listing);
        assertEquals(List.of(listing.entries().get(1)), one.unverified());
        assertTrue(one.record().isEmpty());
        assertFalse(one.complete());
    }

    @Test
    void refusesOutputWithoutFreeSpaceOrWithUnknownLines() {
        assertThrows(IllegalArgumentException.class, () -> NodeHoldings.parse("file\t1\t644\t1\tx\n"));
        assertThrows(IllegalArgumentException.class, () -> NodeHoldings.parse("space\t1\t1\t1\nsurprise\n"));
        assertTrue(NodeHoldings.parse("space\t1\t1\t1\nnotdir\n").notDirectory());
    }
}
