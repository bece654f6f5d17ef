#!/bin/sh
# C++ names without the template arguments of their classes (F6 of QA round
# s12): graph, report -m, record --filter and --trigger find `Box::sum` for
# `Box<long>::sum() const`, `std::map::operator[]`, a user-defined literal by
# `operator"" _km`; operator names are kept whole (`Box::operator<` is not
# `Box::operator`).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
work=$1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

c++ -O0 -finstrument-functions -o cxx "$here/progs/cxxnames.cpp" || fail "build"
"$ZOND" record -q --no-time -o cxx.db -- ./cxx >out.txt || fail "record"
check_eq "the program's output" "$(cat out.txt)" "81 5000"

# rows NAME: the names of report -m NAME's rows, '|'-joined
rows() { "$ZOND" report -i cxx.db -n 0 -m "$1" | awk '/^ +calls/{t=1;next} t&&NF>1{sub(/^ *[0-9]+  /,""); printf "%s|", $0}'; }
check_eq "Box::sum" "$(rows 'Box::sum')" "Box<long>::sum() const|"
check_eq "Box<long>::sum" "$(rows 'Box<long>::sum')" "Box<long>::sum() const|"
check_eq "Box::operator[]" "$(rows 'Box::operator[]')" "Box<long>::operator[](int)|"
check_eq "Box::operator<" "$(rows 'Box::operator<')" "Box<long>::operator<(Box<long> const&) const|"
check_eq "Box::get" "$(rows 'Box::get')" "int Box<long>::get<int>(int) const|"
check_eq "Box::get<int>" "$(rows 'Box::get<int>')" "int Box<long>::get<int>(int) const|"
check_eq "operator\"\" _km" "$(rows 'operator"" _km')" "operator\"\" _km(unsigned long long)|"
check_eq "std::map::operator[]" "$(rows 'std::map::operator[]' | sed 's/::operator\[\].*/::operator[]/')" \
	"std::map<int, int, std::less<int>, std::allocator<std::pair<int const, int> > >::operator[]"
check_eq "std::vector::push_back" "$(rows 'std::vector::push_back')" \
	"std::vector<int, std::allocator<int> >::push_back(int&&)|"
check_eq "Box::operator (no operator of that name)" "$(rows 'Box::operator')" ""
check_eq "sum (a class's method needs its class)" "$(rows 'sum')" ""

for name in 'Box::sum' 'Box::operator[]' 'operator"" _km' 'std::vector::push_back'; do
	"$ZOND" graph -i cxx.db "$name" >g.txt 2>&1 || fail "graph $name: $(cat g.txt)"
done
"$ZOND" graph -i cxx.db 'Box::sum' >g.txt 2>&1
check_eq "graph Box::sum's entry" "$(grep -c '^\[.*Box<long>::sum() const' g.txt)" 1

# annotate takes the names graph takes (QA s16 X1 F2: only the whole signature)
"$ZOND" annotate -i cxx.db 'Box<long>::sum() const' >whole.txt 2>&1 || fail "annotate, whole name: $(cat whole.txt)"
"$ZOND" annotate -i cxx.db 'Box::sum' >short.txt 2>&1 || fail "annotate Box::sum: $(cat short.txt)"
check_same "annotate Box::sum is annotate of the whole name" short.txt whole.txt
check_eq "annotate of no function" "$("$ZOND" annotate -i cxx.db 'Box::nothing' 2>&1)" \
	"zond annotate: no function 'Box::nothing' in run 1"

# dump NAME_DB: the recorded functions, '|'-joined
kept() { "$ZOND" dump -i "$1" | sed -n 's/^function //p' | tr '\n' '|'; }
"$ZOND" record -q --no-time -F 'Box::sum' -o f.db -- ./cxx >/dev/null || fail "record -F Box::sum"
check_eq "-F Box::sum" "$(kept f.db)" "Box<long>::sum() const calls=1|"
"$ZOND" record -q --no-time -T 'Box::sum' -o t.db -- ./cxx >/dev/null || fail "record -T Box::sum"
check_eq "-T Box::sum" "$(kept t.db)" "Box<long>::sum() const calls=1|"
"$ZOND" record -q --no-time -N 'Box::*' -o n.db -- ./cxx >/dev/null || fail "record -N Box::*"
check_eq "-N Box::* leaves out Box's" "$(kept n.db | tr '|' '\n' | grep -c Box)" 0
check_eq "-N Box::* keeps the rest" "$(kept n.db | tr '|' '\n' | grep -c '^Vec::operator\[\](int) calls=4$')" 1
finish
