#!/usr/bin/perl
# The two rules of DESIGN.md §2 as checks over src/, run by `make check`
# (tests/arch/CMakeLists.txt):
#   calls     no file outside src/binding calls an MPI_/PMPI_ function
#             (`\bP?MPI_[A-Z][a-z_0-9]*\s*\(`: calls and function-like
#             macros; type names such as MPI_Comm and constants such as
#             MPI_COMM_WORLD do not match; comments and the contents of
#             string and character literals are blanked first, so prose
#             about MPI_Comm_split is not a call);
#   includes  no file includes a header of a higher layer (#include
#             "folder/..." where folder comes after the file's own folder
#             in @LAYERS below).
# Usage: perl layers.pl calls|includes SRC_DIR
# Prints each violation as file:line: text, and exits 1 when there is one.
use strict;
use warnings;
use File::Find;

# The layer order of DESIGN.md §2, bottom to top: a file in folder X may
# include the headers of X and of the folders before X, never after it.
# Encoded once, here; keep it in step with the table.  topo sits right
# above base: by the table it may call base only (its object is its own
# struct), while every constructor (comm/) and the binding use it.
my @LAYERS = qw(base topo boot smap shm net dtype p2p mpi coll comm rma io spawn tool binding);

my ($what, $src) = @ARGV;
die "usage: layers.pl calls|includes SRC_DIR\n"
    unless defined $src && ($what eq 'calls' || $what eq 'includes');
my %rank;
@rank{@LAYERS} = (0 .. $#LAYERS);

my @files;
find({ no_chdir => 1,
       wanted => sub { push @files, $File::Find::name if /\.[ch]$/ && -f } }, $src);
my @bad;
for my $path (sort @files) {
    (my $rel = $path) =~ s{^\Q$src\E/?}{};
    my ($folder) = $rel =~ m{^([^/]+)/} or next;   # files directly in src/: none
    open my $fh, '<', $path or die "$path: $!\n";
    my $text = do { local $/; <$fh> };
    close $fh;
    if ($what eq 'calls') {
        next if $folder eq 'binding';
        # blank comments and literals, keeping the newlines (line numbers)
        $text =~ s{(/\*.*?\*/)|(//[^\n]*)|("(?:[^"\\\n]|\\.)*")|('(?:[^'\\\n]|\\.)*')}{
            defined $1 ? do { (my $c = $1) =~ s/[^\n]//g; $c }
          : defined $2 ? '' : defined $3 ? '""' : "''"
        }gse;
        my $n = 0;
        for my $line (split /\n/, $text, -1) {
            $n++;
            push @bad, "$rel:$n: $line" if $line =~ /(?<![A-Za-z0-9_])P?MPI_[A-Z][a-z_0-9]*\s*\(/;
        }
    } else {
        if (!exists $rank{$folder}) {
            push @bad, "$rel: folder $folder is not in the layer order (tests/arch/layers.pl)";
            next;
        }
        my $n = 0;
        for my $line (split /\n/, $text, -1) {
            $n++;
            next unless $line =~ /^\s*#\s*include\s*"([a-z0-9_]+)\//;
            my $to = $1;
            next unless exists $rank{$to};   # not a layer (a generated header)
            push @bad, "$rel:$n: $line ($folder includes $to, a higher layer)"
                if $rank{$to} > $rank{$folder};
        }
    }
}
if (@bad) {
    print "$_\n" for @bad;
    printf STDERR "layers.pl %s: %d violation(s) of DESIGN.md section 2 above\n", $what,
        scalar @bad;
    exit 1;
}
print "layers.pl $what: none\n";
