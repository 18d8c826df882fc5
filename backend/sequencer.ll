; lazyarray sequencer, sources 2dc77c5788370799ab4d0ced7023a4d48a4863a2c639d9e4363dd8c78eabdaf1
; ModuleID = "lazyarray_sequencer"
target triple = "unknown-unknown-unknown"
target datalayout = ""

define internal i64 @"stride_along"(ptr %".1", i64 %".2") noinline nounwind
{
entry:
  %".7" = alloca i64
  br label %"body"
body:
  %".5" = getelementptr i64, ptr %".1", i64 10
  %".6" = load i64, ptr %".5"
  store i64 0, i64* %".7"
  %".9" = icmp sge i64 %".6", 0
  br i1 %".9", label %"body.if", label %"body.endif"
body.if:
  %".11" = getelementptr i64, ptr %".1", i64 2
  %".12" = load i64, ptr %".11"
  %".13" = inttoptr i64 %".12" to ptr
  %".14" = add i64 %".6", 1
  %".15" = add i64 %".2", %".14"
  %".16" = getelementptr i64, ptr %".13", i64 %".15"
  %".17" = load i64, ptr %".16"
  store i64 %".17", i64* %".7"
  br label %"body.endif"
body.endif:
  %".20" = load i64, i64* %".7"
  ret i64 %".20"
}

define internal ptr @"data"(ptr %".1", i64 %".2") noinline nounwind
{
entry:
  br label %"body"
body:
  %".5" = getelementptr i64, ptr %".1", i64 1
  %".6" = load i64, ptr %".5"
  %".7" = inttoptr i64 %".6" to ptr
  %".8" = getelementptr ptr, ptr %".7", i64 %".2"
  %".9" = load ptr, ptr %".8"
  %".10" = getelementptr ptr, ptr %".9", i64 2
  %".11" = load ptr, ptr %".10"
  ret ptr %".11"
}

define internal void @"reset"(ptr %".1") noinline nounwind
{
entry:
  %".15" = alloca i64
  %".47" = alloca i64
  br label %"body"
body:
  %".4" = getelementptr i64, ptr %".1", i64 2
  %".5" = load i64, ptr %".4"
  %".6" = inttoptr i64 %".5" to ptr
  %".7" = getelementptr i64, ptr %".1", i64 8
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".1", i64 9
  %".11" = load i64, ptr %".10"
  %".12" = inttoptr i64 %".11" to ptr
  %".13" = getelementptr i64, ptr %".1", i64 13
  %".14" = load i64, ptr %".13"
  store i64 0, i64* %".15"
  br label %"for"
for:
  %".18" = load i64, i64* %".15"
  %".19" = icmp slt i64 %".18", %".14"
  br i1 %".19", label %"for.body", label %"for.done"
for.body:
  %".21" = getelementptr i64, ptr %".1", i64 14
  %".22" = load i64, ptr %".21"
  %".23" = inttoptr i64 %".22" to ptr
  %".24" = mul i64 %".18", 5
  %".25" = getelementptr i64, ptr %".23", i64 %".24"
  %".26" = getelementptr i64, ptr %".25", i64 2
  %".27" = load i64, ptr %".26"
  %".28" = getelementptr i64, ptr %".6", i64 %".27"
  %".29" = load i64, ptr %".28"
  %".30" = getelementptr i64, ptr %".9", i64 %".18"
  store i64 %".29", ptr %".30"
  %".32" = load i64, i64* %".15"
  %".33" = add i64 %".32", 1
  store i64 %".33", i64* %".15"
  br label %"for"
for.done:
  %".36" = getelementptr i64, ptr %".1", i64 0
  %".37" = load i64, ptr %".36"
  %".38" = inttoptr i64 %".37" to ptr
  %".39" = getelementptr i64, ptr %".38", i64 14
  %".40" = load i64, ptr %".39"
  %".41" = getelementptr i64, ptr %".6", i64 %".40"
  %".42" = load i64, ptr %".41"
  %".43" = getelementptr i64, ptr %".9", i64 %".14"
  store i64 %".42", ptr %".43"
  %".45" = getelementptr i64, ptr %".1", i64 12
  %".46" = load i64, ptr %".45"
  store i64 0, i64* %".47"
  br label %"for.1"
for.1:
  %".50" = load i64, i64* %".47"
  %".51" = icmp slt i64 %".50", %".46"
  br i1 %".51", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".53" = getelementptr i64, ptr %".12", i64 %".50"
  store i64 0, ptr %".53"
  %".55" = load i64, i64* %".47"
  %".56" = add i64 %".55", 1
  store i64 %".56", i64* %".47"
  br label %"for.1"
for.done.1:
  ret void
}

define internal i1 @"advance"(ptr %".1", i64 %".2", i64 %".3") noinline nounwind
{
entry:
  %".28" = alloca i64
  %".41" = alloca i64
  %".86" = alloca i64
  br label %"body"
body:
  %".6" = getelementptr i64, ptr %".1", i64 2
  %".7" = load i64, ptr %".6"
  %".8" = inttoptr i64 %".7" to ptr
  %".9" = getelementptr i64, ptr %".1", i64 8
  %".10" = load i64, ptr %".9"
  %".11" = inttoptr i64 %".10" to ptr
  %".12" = getelementptr i64, ptr %".1", i64 9
  %".13" = load i64, ptr %".12"
  %".14" = inttoptr i64 %".13" to ptr
  %".15" = getelementptr i64, ptr %".1", i64 15
  %".16" = load i64, ptr %".15"
  %".17" = inttoptr i64 %".16" to ptr
  %".18" = getelementptr i64, ptr %".1", i64 13
  %".19" = load i64, ptr %".18"
  %".20" = getelementptr i64, ptr %".1", i64 10
  %".21" = load i64, ptr %".20"
  %".22" = getelementptr i64, ptr %".1", i64 0
  %".23" = load i64, ptr %".22"
  %".24" = inttoptr i64 %".23" to ptr
  %".25" = getelementptr i64, ptr %".24", i64 14
  %".26" = load i64, ptr %".25"
  %".27" = sub i64 %".3", 1
  store i64 %".27", i64* %".28"
  br label %"axis"
axis:
  %".31" = load i64, i64* %".28"
  %".32" = icmp slt i64 %".31", %".2"
  br i1 %".32", label %"done", label %"live"
step:
  %".39" = getelementptr i64, ptr %".17", i64 %".31"
  %".40" = load i64, ptr %".39"
  store i64 0, i64* %".41"
  br label %"for"
wrap:
  %".85" = sub i64 0, %".40"
  store i64 0, i64* %".86"
  br label %"for.1"
moved:
  ret i1 1
done:
  ret i1 0
skip:
  %".36" = sub i64 %".31", 1
  store i64 %".36", i64* %".28"
  br label %"axis"
live:
  %".34" = icmp eq i64 %".31", %".21"
  br i1 %".34", label %"skip", label %"step"
for:
  %".44" = load i64, i64* %".41"
  %".45" = icmp slt i64 %".44", %".19"
  br i1 %".45", label %"for.body", label %"for.done"
for.body:
  %".47" = getelementptr i64, ptr %".1", i64 14
  %".48" = load i64, ptr %".47"
  %".49" = inttoptr i64 %".48" to ptr
  %".50" = mul i64 %".44", 5
  %".51" = getelementptr i64, ptr %".49", i64 %".50"
  %".52" = getelementptr i64, ptr %".51", i64 2
  %".53" = load i64, ptr %".52"
  %".54" = add i64 %".31", 1
  %".55" = add i64 %".53", %".54"
  %".56" = getelementptr i64, ptr %".8", i64 %".55"
  %".57" = load i64, ptr %".56"
  %".58" = getelementptr i64, ptr %".11", i64 %".44"
  %".59" = load i64, ptr %".58"
  %".60" = mul i64 %".57", 1
  %".61" = add i64 %".59", %".60"
  %".62" = getelementptr i64, ptr %".11", i64 %".44"
  store i64 %".61", ptr %".62"
  %".64" = load i64, i64* %".41"
  %".65" = add i64 %".64", 1
  store i64 %".65", i64* %".41"
  br label %"for"
for.done:
  %".68" = add i64 %".31", 1
  %".69" = add i64 %".26", %".68"
  %".70" = getelementptr i64, ptr %".8", i64 %".69"
  %".71" = load i64, ptr %".70"
  %".72" = getelementptr i64, ptr %".11", i64 %".19"
  %".73" = load i64, ptr %".72"
  %".74" = mul i64 %".71", 1
  %".75" = add i64 %".73", %".74"
  %".76" = getelementptr i64, ptr %".11", i64 %".19"
  store i64 %".75", ptr %".76"
  %".78" = getelementptr i64, ptr %".14", i64 %".31"
  %".79" = load i64, ptr %".78"
  %".80" = add i64 %".79", 1
  %".81" = getelementptr i64, ptr %".14", i64 %".31"
  store i64 %".80", ptr %".81"
  %".83" = icmp slt i64 %".80", %".40"
  br i1 %".83", label %"moved", label %"wrap"
for.1:
  %".89" = load i64, i64* %".86"
  %".90" = icmp slt i64 %".89", %".19"
  br i1 %".90", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".92" = getelementptr i64, ptr %".1", i64 14
  %".93" = load i64, ptr %".92"
  %".94" = inttoptr i64 %".93" to ptr
  %".95" = mul i64 %".89", 5
  %".96" = getelementptr i64, ptr %".94", i64 %".95"
  %".97" = getelementptr i64, ptr %".96", i64 2
  %".98" = load i64, ptr %".97"
  %".99" = add i64 %".31", 1
  %".100" = add i64 %".98", %".99"
  %".101" = getelementptr i64, ptr %".8", i64 %".100"
  %".102" = load i64, ptr %".101"
  %".103" = getelementptr i64, ptr %".11", i64 %".89"
  %".104" = load i64, ptr %".103"
  %".105" = mul i64 %".102", %".85"
  %".106" = add i64 %".104", %".105"
  %".107" = getelementptr i64, ptr %".11", i64 %".89"
  store i64 %".106", ptr %".107"
  %".109" = load i64, i64* %".86"
  %".110" = add i64 %".109", 1
  store i64 %".110", i64* %".86"
  br label %"for.1"
for.done.1:
  %".113" = add i64 %".31", 1
  %".114" = add i64 %".26", %".113"
  %".115" = getelementptr i64, ptr %".8", i64 %".114"
  %".116" = load i64, ptr %".115"
  %".117" = getelementptr i64, ptr %".11", i64 %".19"
  %".118" = load i64, ptr %".117"
  %".119" = mul i64 %".116", %".85"
  %".120" = add i64 %".118", %".119"
  %".121" = getelementptr i64, ptr %".11", i64 %".19"
  store i64 %".120", ptr %".121"
  %".123" = getelementptr i64, ptr %".14", i64 %".31"
  store i64 0, ptr %".123"
  %".125" = sub i64 %".31", 1
  store i64 %".125", i64* %".28"
  br label %"axis"
}

define internal i1 @"empty"(ptr %".1", i64 %".2", i64 %".3") noinline nounwind
{
entry:
  %".9" = alloca i1
  %".11" = alloca i64
  br label %"body"
body:
  %".6" = getelementptr i64, ptr %".1", i64 15
  %".7" = load i64, ptr %".6"
  %".8" = inttoptr i64 %".7" to ptr
  store i1 0, i1* %".9"
  store i64 %".2", i64* %".11"
  br label %"for"
for:
  %".14" = load i64, i64* %".11"
  %".15" = icmp slt i64 %".14", %".3"
  br i1 %".15", label %"for.body", label %"for.done"
for.body:
  %".17" = getelementptr i64, ptr %".8", i64 %".14"
  %".18" = load i64, ptr %".17"
  %".19" = icmp eq i64 %".18", 0
  br i1 %".19", label %"for.body.if", label %"for.body.endif"
for.done:
  %".27" = load i1, i1* %".9"
  ret i1 %".27"
for.body.if:
  store i1 1, i1* %".9"
  br label %"for.body.endif"
for.body.endif:
  %".23" = load i64, i64* %".11"
  %".24" = add i64 %".23", 1
  store i64 %".24", i64* %".11"
  br label %"for"
}

define internal void @"eval_block"(ptr %".1", i64 %".2", i64 %".3", ptr %".4", i64 %".5", i64 %".6") noinline nounwind
{
entry:
  %".41" = alloca i64
  %".152" = alloca i64
  br label %"body"
body:
  %".9" = getelementptr i64, ptr %".1", i64 0
  %".10" = load i64, ptr %".9"
  %".11" = inttoptr i64 %".10" to ptr
  %".12" = getelementptr i64, ptr %".1", i64 5
  %".13" = load i64, ptr %".12"
  %".14" = inttoptr i64 %".13" to ptr
  %".15" = getelementptr i64, ptr %".1", i64 6
  %".16" = load i64, ptr %".15"
  %".17" = inttoptr i64 %".16" to ptr
  %".18" = getelementptr i64, ptr %".1", i64 2
  %".19" = load i64, ptr %".18"
  %".20" = inttoptr i64 %".19" to ptr
  %".21" = getelementptr i64, ptr %".1", i64 8
  %".22" = load i64, ptr %".21"
  %".23" = inttoptr i64 %".22" to ptr
  %".24" = getelementptr i64, ptr %".1", i64 7
  %".25" = load i64, ptr %".24"
  %".26" = inttoptr i64 %".25" to ptr
  %".27" = getelementptr i64, ptr %".1", i64 4
  %".28" = load i64, ptr %".27"
  %".29" = inttoptr i64 %".28" to ptr
  %".30" = getelementptr i64, ptr %".1", i64 17
  %".31" = load i64, ptr %".30"
  %".32" = inttoptr i64 %".31" to ptr
  %".33" = getelementptr i64, ptr %".11", i64 9
  %".34" = load i64, ptr %".33"
  %".35" = getelementptr i64, ptr %".11", i64 11
  %".36" = load i64, ptr %".35"
  %".37" = getelementptr i64, ptr %".1", i64 12
  %".38" = load i64, ptr %".37"
  %".39" = getelementptr i64, ptr %".11", i64 37
  %".40" = load i64, ptr %".39"
  store i64 %".5", i64* %".41"
  br label %"for"
for:
  %".44" = load i64, i64* %".41"
  %".45" = icmp slt i64 %".44", %".6"
  br i1 %".45", label %"for.body", label %"for.done"
for.body:
  %".47" = mul i64 %".44", 8
  %".48" = add i64 %".34", %".47"
  %".49" = getelementptr i64, ptr %".11", i64 %".48"
  %".50" = getelementptr i64, ptr %".49", i64 0
  %".51" = load i64, ptr %".50"
  %".52" = getelementptr i64, ptr %".49", i64 1
  %".53" = load i64, ptr %".52"
  %".54" = mul i64 %".53", %".40"
  %".55" = getelementptr i8, ptr %".17", i64 %".54"
  %".56" = getelementptr ptr, ptr %".14", i64 %".53"
  switch i64 %".51", label %"next" [i64 0, label %"load" i64 2, label %"op" i64 3, label %"gather" i64 1, label %"scalar"]
for.done:
  ret void
load:
  %".60" = getelementptr i64, ptr %".49", i64 3
  %".61" = load i64, ptr %".60"
  %".62" = mul i64 %".61", 4
  %".63" = getelementptr i64, ptr %".32", i64 %".62"
  %".64" = getelementptr i64, ptr %".63", i64 1
  %".65" = load i64, ptr %".64"
  %".66" = getelementptr i64, ptr %".63", i64 2
  %".67" = load i64, ptr %".66"
  %".68" = getelementptr ptr, ptr %".63", i64 0
  %".69" = load ptr, ptr %".68"
  %".70" = getelementptr i64, ptr %".23", i64 %".61"
  %".71" = load i64, ptr %".70"
  %".72" = mul i64 %".3", %".67"
  %".73" = add i64 %".71", %".72"
  %".74" = mul i64 %".73", %".65"
  %".75" = getelementptr i8, ptr %".69", i64 %".74"
  %".76" = icmp eq i64 %".67", 1
  br i1 %".76", label %"load.if", label %"load.else"
op:
  %".88" = sub i64 %".6", 1
  %".89" = icmp eq i64 %".44", %".88"
  %".90" = icmp eq i64 %".53", %".36"
  %".91" = and i1 %".89", %".90"
  %".92" = icmp ne ptr %".4", null
  %".93" = and i1 %".91", %".92"
  %".94" = select  i1 %".93", ptr %".4", ptr %".55"
  %".95" = getelementptr i64, ptr %".49", i64 3
  %".96" = load i64, ptr %".95"
  %".97" = icmp slt i64 %".96", 0
  %".98" = select  i1 %".97", i64 0, i64 %".96"
  %".99" = getelementptr ptr, ptr %".14", i64 %".98"
  %".100" = load ptr, ptr %".99"
  %".101" = icmp slt i64 %".96", 0
  %".102" = select  i1 %".101", ptr null, ptr %".100"
  %".103" = getelementptr i64, ptr %".49", i64 4
  %".104" = load i64, ptr %".103"
  %".105" = icmp slt i64 %".104", 0
  %".106" = select  i1 %".105", i64 0, i64 %".104"
  %".107" = getelementptr ptr, ptr %".14", i64 %".106"
  %".108" = load ptr, ptr %".107"
  %".109" = icmp slt i64 %".104", 0
  %".110" = select  i1 %".109", ptr null, ptr %".108"
  %".111" = getelementptr i64, ptr %".49", i64 5
  %".112" = load i64, ptr %".111"
  %".113" = icmp slt i64 %".112", 0
  %".114" = select  i1 %".113", i64 0, i64 %".112"
  %".115" = getelementptr ptr, ptr %".14", i64 %".114"
  %".116" = load ptr, ptr %".115"
  %".117" = icmp slt i64 %".112", 0
  %".118" = select  i1 %".117", ptr null, ptr %".116"
  %".119" = getelementptr i64, ptr %".49", i64 2
  %".120" = load i64, ptr %".119"
  %".121" = inttoptr i64 %".120" to void (ptr, ptr, ptr, ptr, i64)*
  call void %".121"(ptr %".94", ptr %".102", ptr %".110", ptr %".118", i64 %".2")
  store ptr %".94", ptr %".56"
  br label %"next"
gather:
  %".125" = getelementptr i64, ptr %".49", i64 3
  %".126" = load i64, ptr %".125"
  %".127" = getelementptr i64, ptr %".1", i64 14
  %".128" = load i64, ptr %".127"
  %".129" = inttoptr i64 %".128" to ptr
  %".130" = mul i64 %".126", 5
  %".131" = getelementptr i64, ptr %".129", i64 %".130"
  %".132" = getelementptr i64, ptr %".131", i64 2
  %".133" = load i64, ptr %".132"
  %".134" = mul i64 %".126", 4
  %".135" = getelementptr i64, ptr %".32", i64 %".134"
  %".136" = getelementptr i64, ptr %".135", i64 2
  %".137" = load i64, ptr %".136"
  %".138" = getelementptr ptr, ptr %".135", i64 0
  %".139" = load ptr, ptr %".138"
  %".140" = getelementptr i64, ptr %".49", i64 6
  %".141" = load i64, ptr %".140"
  %".142" = getelementptr i64, ptr %".23", i64 %".126"
  %".143" = load i64, ptr %".142"
  %".144" = mul i64 %".3", %".137"
  %".145" = add i64 %".143", %".144"
  %".146" = inttoptr i64 %".141" to void (ptr, i64, i64, i64)*
  call void %".146"(ptr %".26", i64 %".145", i64 %".137", i64 %".2")
  %".148" = getelementptr i64, ptr %".49", i64 5
  %".149" = load i64, ptr %".148"
  %".150" = getelementptr i64, ptr %".49", i64 4
  %".151" = load i64, ptr %".150"
  store i64 0, i64* %".152"
  br label %"for.1"
scalar:
  store ptr %".55", ptr %".56"
  br label %"next"
next:
  %".190" = load i64, i64* %".41"
  %".191" = add i64 %".190", 1
  store i64 %".191", i64* %".41"
  br label %"for"
load.if:
  store ptr %".75", ptr %".56"
  br label %"load.endif"
load.else:
  %".80" = getelementptr i64, ptr %".63", i64 3
  %".81" = load i64, ptr %".80"
  %".82" = mul i64 %".67", %".65"
  %".83" = inttoptr i64 %".81" to void (ptr, ptr, i64, i64)*
  call void %".83"(ptr %".55", ptr %".75", i64 %".82", i64 %".2")
  store ptr %".55", ptr %".56"
  br label %"load.endif"
load.endif:
  br label %"next"
for.1:
  %".155" = load i64, i64* %".152"
  %".156" = icmp slt i64 %".155", %".151"
  br i1 %".156", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".158" = mul i64 %".155", 3
  %".159" = add i64 %".149", %".158"
  %".160" = getelementptr i64, ptr %".11", i64 %".159"
  %".161" = mul i64 %".155", 2
  %".162" = add i64 %".38", %".161"
  %".163" = add i64 1, %".162"
  %".164" = add i64 %".133", %".163"
  %".165" = getelementptr i64, ptr %".160", i64 1
  %".166" = load i64, ptr %".165"
  %".167" = getelementptr i64, ptr %".160", i64 0
  %".168" = load i64, ptr %".167"
  %".169" = getelementptr ptr, ptr %".14", i64 %".168"
  %".170" = load ptr, ptr %".169"
  %".171" = getelementptr i64, ptr %".20", i64 %".164"
  %".172" = load i64, ptr %".171"
  %".173" = add i64 %".164", 1
  %".174" = getelementptr i64, ptr %".20", i64 %".173"
  %".175" = load i64, ptr %".174"
  %".176" = getelementptr i64, ptr %".160", i64 2
  %".177" = load i64, ptr %".176"
  %".178" = inttoptr i64 %".166" to void (ptr, ptr, i64, i64, i64, ptr, i64)*
  call void %".178"(ptr %".26", ptr %".170", i64 %".172", i64 %".175", i64 %".177", ptr %".29", i64 %".2")
  %".180" = load i64, i64* %".152"
  %".181" = add i64 %".180", 1
  store i64 %".181", i64* %".152"
  br label %"for.1"
for.done.1:
  %".184" = getelementptr i64, ptr %".49", i64 2
  %".185" = load i64, ptr %".184"
  %".186" = inttoptr i64 %".185" to void (ptr, ptr, ptr, i64)*
  call void %".186"(ptr %".55", ptr %".139", ptr %".26", i64 %".2")
  store ptr %".55", ptr %".56"
  br label %"next"
}

define internal void @"store_block"(ptr %".1", ptr %".2", i64 %".3", i64 %".4") noinline nounwind
{
entry:
  br label %"body"
body:
  %".7" = getelementptr i64, ptr %".1", i64 0
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".1", i64 8
  %".11" = load i64, ptr %".10"
  %".12" = inttoptr i64 %".11" to ptr
  %".13" = getelementptr i64, ptr %".9", i64 13
  %".14" = load i64, ptr %".13"
  %".15" = getelementptr i64, ptr %".1", i64 19
  %".16" = load i64, ptr %".15"
  %".17" = getelementptr i64, ptr %".1", i64 18
  %".18" = load i64, ptr %".17"
  %".19" = inttoptr i64 %".18" to ptr
  %".20" = getelementptr i64, ptr %".1", i64 13
  %".21" = load i64, ptr %".20"
  %".22" = getelementptr i64, ptr %".12", i64 %".21"
  %".23" = load i64, ptr %".22"
  %".24" = mul i64 %".4", %".16"
  %".25" = add i64 %".23", %".24"
  %".26" = mul i64 %".25", %".14"
  %".27" = getelementptr i8, ptr %".19", i64 %".26"
  %".28" = icmp ne ptr %".27", %".2"
  br i1 %".28", label %"body.if", label %"body.endif"
body.if:
  %".30" = getelementptr i64, ptr %".9", i64 15
  %".31" = load i64, ptr %".30"
  %".32" = mul i64 %".16", %".14"
  %".33" = inttoptr i64 %".31" to void (ptr, i64, ptr, i64)*
  call void %".33"(ptr %".27", i64 %".32", ptr %".2", i64 %".3")
  br label %"body.endif"
body.endif:
  ret void
}

define internal ptr @"post_block"(ptr %".1", ptr %".2", i64 %".3", i64 %".4") noinline nounwind
{
entry:
  %".12" = alloca ptr
  br label %"body"
body:
  %".7" = getelementptr i64, ptr %".1", i64 0
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".9", i64 40
  %".11" = load i64, ptr %".10"
  store ptr %".2", ptr %".12"
  %".14" = icmp sgt i64 %".11", 0
  br i1 %".14", label %"body.if", label %"body.endif"
body.if:
  %".16" = getelementptr i64, ptr %".1", i64 5
  %".17" = load i64, ptr %".16"
  %".18" = inttoptr i64 %".17" to ptr
  %".19" = getelementptr i64, ptr %".9", i64 41
  %".20" = load i64, ptr %".19"
  %".21" = getelementptr ptr, ptr %".18", i64 %".20"
  store ptr %".2", ptr %".21"
  %".23" = getelementptr i64, ptr %".9", i64 8
  %".24" = load i64, ptr %".23"
  %".25" = add i64 %".24", %".11"
  call void @"eval_block"(ptr %".1", i64 %".3", i64 %".4", ptr null, i64 %".24", i64 %".25")
  %".27" = getelementptr i64, ptr %".9", i64 42
  %".28" = load i64, ptr %".27"
  %".29" = getelementptr ptr, ptr %".18", i64 %".28"
  %".30" = load ptr, ptr %".29"
  store ptr %".30", ptr %".12"
  br label %"body.endif"
body.endif:
  %".33" = load ptr, ptr %".12"
  ret ptr %".33"
}

define internal void @"run_compiled"(ptr %".1", i64 %".2") noinline nounwind
{
entry:
  %".28" = alloca i64
  %".44" = alloca i64
  br label %"body"
body:
  %".5" = getelementptr i64, ptr %".1", i64 0
  %".6" = load i64, ptr %".5"
  %".7" = inttoptr i64 %".6" to ptr
  %".8" = getelementptr i64, ptr %".1", i64 2
  %".9" = load i64, ptr %".8"
  %".10" = inttoptr i64 %".9" to ptr
  %".11" = getelementptr i64, ptr %".1", i64 3
  %".12" = load i64, ptr %".11"
  %".13" = inttoptr i64 %".12" to ptr
  %".14" = getelementptr i64, ptr %".1", i64 4
  %".15" = load i64, ptr %".14"
  %".16" = inttoptr i64 %".15" to ptr
  %".17" = getelementptr i64, ptr %".7", i64 28
  %".18" = load i64, ptr %".17"
  %".19" = getelementptr i64, ptr %".7", i64 30
  %".20" = load i64, ptr %".19"
  %".21" = alloca ptr, i64 %".18"
  %".22" = add i64 %".20", 1
  %".23" = alloca ptr, i64 %".22"
  %".24" = getelementptr i64, ptr %".7", i64 29
  %".25" = load i64, ptr %".24"
  %".26" = getelementptr i64, ptr %".7", i64 31
  %".27" = load i64, ptr %".26"
  store i64 0, i64* %".28"
  br label %"for"
for:
  %".31" = load i64, i64* %".28"
  %".32" = icmp slt i64 %".31", %".18"
  br i1 %".32", label %"for.body", label %"for.done"
for.body:
  %".34" = add i64 %".25", %".31"
  %".35" = getelementptr i64, ptr %".7", i64 %".34"
  %".36" = load i64, ptr %".35"
  %".37" = call ptr @"data"(ptr %".1", i64 %".36")
  %".38" = getelementptr ptr, ptr %".21", i64 %".31"
  store ptr %".37", ptr %".38"
  %".40" = load i64, i64* %".28"
  %".41" = add i64 %".40", 1
  store i64 %".41", i64* %".28"
  br label %"for"
for.done:
  store i64 0, i64* %".44"
  br label %"for.1"
for.1:
  %".47" = load i64, i64* %".44"
  %".48" = icmp slt i64 %".47", %".20"
  br i1 %".48", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".50" = add i64 %".27", %".47"
  %".51" = getelementptr i64, ptr %".7", i64 %".50"
  %".52" = load i64, ptr %".51"
  %".53" = mul i64 %".52", 16
  %".54" = getelementptr i8, ptr %".13", i64 %".53"
  %".55" = getelementptr ptr, ptr %".23", i64 %".47"
  store ptr %".54", ptr %".55"
  %".57" = load i64, i64* %".44"
  %".58" = add i64 %".57", 1
  store i64 %".58", i64* %".44"
  br label %"for.1"
for.done.1:
  %".61" = getelementptr i64, ptr %".7", i64 4
  %".62" = load i64, ptr %".61"
  %".63" = getelementptr i64, ptr %".10", i64 %".62"
  %".64" = inttoptr i64 %".2" to void (ptr, ptr, ptr, ptr)*
  call void %".64"(ptr %".21", ptr %".63", ptr %".23", ptr %".16")
  ret void
}

define internal void @"run_elementwise"(ptr %".1") noinline nounwind
{
entry:
  %".23" = alloca i64
  %".74" = alloca i64
  br label %"body"
body:
  %".4" = getelementptr i64, ptr %".1", i64 12
  %".5" = load i64, ptr %".4"
  %".6" = call i1 @"empty"(ptr %".1", i64 0, i64 %".5")
  %".7" = xor i1 %".6", -1
  br i1 %".7", label %"body.if", label %"body.endif"
body.if:
  call void @"reset"(ptr %".1")
  %".10" = getelementptr i64, ptr %".1", i64 0
  %".11" = load i64, ptr %".10"
  %".12" = inttoptr i64 %".11" to ptr
  %".13" = getelementptr i64, ptr %".1", i64 5
  %".14" = load i64, ptr %".13"
  %".15" = inttoptr i64 %".14" to ptr
  %".16" = getelementptr i64, ptr %".12", i64 11
  %".17" = load i64, ptr %".16"
  br label %"do"
body.endif:
  ret void
do:
  %".19" = getelementptr i64, ptr %".1", i64 11
  %".20" = load i64, ptr %".19"
  %".21" = getelementptr i64, ptr %".1", i64 20
  %".22" = load i64, ptr %".21"
  store i64 0, i64* %".23"
  br label %"for"
do.done:
  br label %"body.endif"
for:
  %".26" = load i64, i64* %".23"
  %".27" = icmp slt i64 %".26", %".20"
  br i1 %".27", label %"for.body", label %"for.done"
for.body:
  %".29" = sub i64 %".20", %".26"
  %".30" = icmp slt i64 %".29", %".22"
  %".31" = select  i1 %".30", i64 %".29", i64 %".22"
  %".32" = getelementptr i64, ptr %".1", i64 0
  %".33" = load i64, ptr %".32"
  %".34" = inttoptr i64 %".33" to ptr
  %".35" = getelementptr i64, ptr %".1", i64 8
  %".36" = load i64, ptr %".35"
  %".37" = inttoptr i64 %".36" to ptr
  %".38" = getelementptr i64, ptr %".1", i64 19
  %".39" = load i64, ptr %".38"
  %".40" = getelementptr i64, ptr %".1", i64 18
  %".41" = load i64, ptr %".40"
  %".42" = inttoptr i64 %".41" to ptr
  %".43" = getelementptr i64, ptr %".1", i64 13
  %".44" = load i64, ptr %".43"
  %".45" = getelementptr i64, ptr %".37", i64 %".44"
  %".46" = load i64, ptr %".45"
  %".47" = mul i64 %".26", %".39"
  %".48" = add i64 %".46", %".47"
  %".49" = getelementptr i64, ptr %".34", i64 13
  %".50" = load i64, ptr %".49"
  %".51" = mul i64 %".48", %".50"
  %".52" = getelementptr i8, ptr %".42", i64 %".51"
  %".53" = icmp eq i64 %".39", 1
  %".54" = select  i1 %".53", ptr %".52", ptr null
  %".55" = getelementptr i64, ptr %".1", i64 0
  %".56" = load i64, ptr %".55"
  %".57" = inttoptr i64 %".56" to ptr
  %".58" = getelementptr i64, ptr %".57", i64 8
  %".59" = load i64, ptr %".58"
  call void @"eval_block"(ptr %".1", i64 %".31", i64 %".26", ptr %".54", i64 0, i64 %".59")
  %".61" = getelementptr ptr, ptr %".15", i64 %".17"
  %".62" = load ptr, ptr %".61"
  call void @"store_block"(ptr %".1", ptr %".62", i64 %".31", i64 %".26")
  %".64" = getelementptr i64, ptr %".1", i64 17
  %".65" = load i64, ptr %".64"
  %".66" = inttoptr i64 %".65" to ptr
  %".67" = getelementptr i64, ptr %".1", i64 8
  %".68" = load i64, ptr %".67"
  %".69" = inttoptr i64 %".68" to ptr
  %".70" = getelementptr i64, ptr %".12", i64 39
  %".71" = load i64, ptr %".70"
  %".72" = getelementptr i64, ptr %".12", i64 38
  %".73" = load i64, ptr %".72"
  store i64 0, i64* %".74"
  br label %"for.1"
for.done:
  %".116" = call i1 @"advance"(ptr %".1", i64 0, i64 %".5")
  br i1 %".116", label %"do", label %"do.done"
for.1:
  %".77" = load i64, i64* %".74"
  %".78" = icmp slt i64 %".77", %".73"
  br i1 %".78", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".80" = mul i64 %".77", 3
  %".81" = add i64 %".71", %".80"
  %".82" = getelementptr i64, ptr %".12", i64 %".81"
  %".83" = getelementptr i64, ptr %".82", i64 1
  %".84" = load i64, ptr %".83"
  %".85" = mul i64 %".84", 4
  %".86" = getelementptr i64, ptr %".66", i64 %".85"
  %".87" = getelementptr i64, ptr %".86", i64 1
  %".88" = load i64, ptr %".87"
  %".89" = getelementptr i64, ptr %".86", i64 2
  %".90" = load i64, ptr %".89"
  %".91" = getelementptr ptr, ptr %".86", i64 0
  %".92" = load ptr, ptr %".91"
  %".93" = getelementptr i64, ptr %".69", i64 %".84"
  %".94" = load i64, ptr %".93"
  %".95" = mul i64 %".26", %".90"
  %".96" = add i64 %".94", %".95"
  %".97" = mul i64 %".96", %".88"
  %".98" = getelementptr i8, ptr %".92", i64 %".97"
  %".99" = getelementptr i64, ptr %".82", i64 2
  %".100" = load i64, ptr %".99"
  %".101" = mul i64 %".90", %".88"
  %".102" = getelementptr i64, ptr %".82", i64 0
  %".103" = load i64, ptr %".102"
  %".104" = getelementptr ptr, ptr %".15", i64 %".103"
  %".105" = load ptr, ptr %".104"
  %".106" = inttoptr i64 %".100" to void (ptr, i64, ptr, i64)*
  call void %".106"(ptr %".98", i64 %".101", ptr %".105", i64 %".31")
  %".108" = load i64, i64* %".74"
  %".109" = add i64 %".108", 1
  store i64 %".109", i64* %".74"
  br label %"for.1"
for.done.1:
  %".112" = load i64, i64* %".23"
  %".113" = add i64 %".112", %".22"
  store i64 %".113", i64* %".23"
  br label %"for"
}

define internal void @"run_reduce"(ptr %".1") noinline nounwind
{
entry:
  %".14" = alloca i64
  %".16" = alloca i64
  %".223" = alloca i64
  %".276" = alloca i64
  %".324" = alloca i64
  %".445" = alloca i64
  br label %"body"
body:
  %".4" = getelementptr i64, ptr %".1", i64 0
  %".5" = load i64, ptr %".4"
  %".6" = inttoptr i64 %".5" to ptr
  %".7" = getelementptr i64, ptr %".1", i64 15
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".6", i64 3
  %".11" = load i64, ptr %".10"
  %".12" = getelementptr i64, ptr %".1", i64 12
  %".13" = load i64, ptr %".12"
  store i64 1, i64* %".14"
  store i64 %".11", i64* %".16"
  br label %"for"
for:
  %".19" = load i64, i64* %".16"
  %".20" = icmp slt i64 %".19", %".13"
  br i1 %".20", label %"for.body", label %"for.done"
for.body:
  %".22" = load i64, i64* %".14"
  %".23" = getelementptr i64, ptr %".9", i64 %".19"
  %".24" = load i64, ptr %".23"
  %".25" = mul i64 %".22", %".24"
  store i64 %".25", i64* %".14"
  %".27" = load i64, i64* %".16"
  %".28" = add i64 %".27", 1
  store i64 %".28", i64* %".16"
  br label %"for"
for.done:
  %".31" = call i1 @"empty"(ptr %".1", i64 %".11", i64 %".13")
  %".32" = load i64, i64* %".14"
  %".33" = getelementptr i64, ptr %".1", i64 2
  %".34" = load i64, ptr %".33"
  %".35" = inttoptr i64 %".34" to ptr
  %".36" = getelementptr i64, ptr %".1", i64 5
  %".37" = load i64, ptr %".36"
  %".38" = inttoptr i64 %".37" to ptr
  %".39" = getelementptr i64, ptr %".1", i64 16
  %".40" = load i64, ptr %".39"
  %".41" = inttoptr i64 %".40" to ptr
  %".42" = getelementptr i64, ptr %".6", i64 11
  %".43" = load i64, ptr %".42"
  %".44" = getelementptr i64, ptr %".6", i64 5
  %".45" = load i64, ptr %".44"
  %".46" = add i64 %".45", 1
  %".47" = getelementptr i64, ptr %".35", i64 %".46"
  %".48" = load i64, ptr %".47"
  %".49" = getelementptr i64, ptr %".6", i64 19
  %".50" = load i64, ptr %".49"
  %".51" = getelementptr i64, ptr %".6", i64 43
  %".52" = load i64, ptr %".51"
  %".53" = icmp ne i64 %".52", 0
  %".54" = call i1 @"empty"(ptr %".1", i64 0, i64 %".11")
  %".55" = xor i1 %".54", -1
  br i1 %".55", label %"for.done.if", label %"for.done.endif"
for.done.if:
  %".57" = getelementptr i64, ptr %".6", i64 24
  %".58" = load i64, ptr %".57"
  %".59" = icmp ne i64 %".58", 0
  br i1 %".59", label %"for.done.if.if", label %"for.done.if.else"
for.done.endif:
  ret void
for.done.if.if:
  %".61" = getelementptr i64, ptr %".1", i64 2
  %".62" = load i64, ptr %".61"
  %".63" = inttoptr i64 %".62" to ptr
  %".64" = getelementptr i64, ptr %".1", i64 15
  %".65" = load i64, ptr %".64"
  %".66" = inttoptr i64 %".65" to ptr
  %".67" = getelementptr i64, ptr %".1", i64 8
  %".68" = load i64, ptr %".67"
  %".69" = inttoptr i64 %".68" to ptr
  %".70" = getelementptr i64, ptr %".1", i64 4
  %".71" = load i64, ptr %".70"
  %".72" = inttoptr i64 %".71" to ptr
  %".73" = sub i64 %".11", 2
  %".74" = sub i64 %".11", 1
  %".75" = getelementptr i64, ptr %".6", i64 25
  %".76" = load i64, ptr %".75"
  %".77" = getelementptr i64, ptr %".1", i64 14
  %".78" = load i64, ptr %".77"
  %".79" = inttoptr i64 %".78" to ptr
  %".80" = mul i64 %".76", 5
  %".81" = getelementptr i64, ptr %".79", i64 %".80"
  %".82" = getelementptr i64, ptr %".81", i64 2
  %".83" = load i64, ptr %".82"
  %".84" = add i64 %".73", 1
  %".85" = add i64 %".83", %".84"
  %".86" = getelementptr i64, ptr %".63", i64 %".85"
  %".87" = load i64, ptr %".86"
  %".88" = add i64 %".74", 1
  %".89" = add i64 %".83", %".88"
  %".90" = getelementptr i64, ptr %".63", i64 %".89"
  %".91" = load i64, ptr %".90"
  %".92" = add i64 %".11", 1
  %".93" = add i64 %".83", %".92"
  %".94" = getelementptr i64, ptr %".63", i64 %".93"
  %".95" = load i64, ptr %".94"
  %".96" = getelementptr i64, ptr %".6", i64 26
  %".97" = load i64, ptr %".96"
  %".98" = getelementptr i64, ptr %".1", i64 14
  %".99" = load i64, ptr %".98"
  %".100" = inttoptr i64 %".99" to ptr
  %".101" = mul i64 %".97", 5
  %".102" = getelementptr i64, ptr %".100", i64 %".101"
  %".103" = getelementptr i64, ptr %".102", i64 2
  %".104" = load i64, ptr %".103"
  %".105" = add i64 %".73", 1
  %".106" = add i64 %".104", %".105"
  %".107" = getelementptr i64, ptr %".63", i64 %".106"
  %".108" = load i64, ptr %".107"
  %".109" = add i64 %".74", 1
  %".110" = add i64 %".104", %".109"
  %".111" = getelementptr i64, ptr %".63", i64 %".110"
  %".112" = load i64, ptr %".111"
  %".113" = add i64 %".11", 1
  %".114" = add i64 %".104", %".113"
  %".115" = getelementptr i64, ptr %".63", i64 %".114"
  %".116" = load i64, ptr %".115"
  %".117" = icmp eq i64 %".91", 0
  %".118" = icmp eq i64 %".108", 0
  %".119" = and i1 %".117", %".118"
  %".120" = icmp eq i64 %".112", 0
  %".121" = icmp eq i64 %".87", 0
  %".122" = and i1 %".120", %".121"
  %".123" = or i1 %".119", %".122"
  br i1 %".123", label %"for.done.if.if.if", label %"for.done.if.if.else"
for.done.if.else:
  call void @"reset"(ptr %".1")
  %".300" = icmp ne i64 %".48", 0
  br i1 %".300", label %"for.done.if.else.if", label %"for.done.if.else.else"
for.done.if.endif:
  br label %"for.done.endif"
for.done.if.if.if:
  %".125" = getelementptr i64, ptr %".1", i64 10
  store i64 -1, ptr %".125"
  call void @"reset"(ptr %".1")
  %".128" = getelementptr i64, ptr %".6", i64 14
  %".129" = load i64, ptr %".128"
  %".130" = add i64 %".73", 1
  %".131" = add i64 %".129", %".130"
  %".132" = getelementptr i64, ptr %".63", i64 %".131"
  %".133" = load i64, ptr %".132"
  %".134" = add i64 %".74", 1
  %".135" = add i64 %".129", %".134"
  %".136" = getelementptr i64, ptr %".63", i64 %".135"
  %".137" = load i64, ptr %".136"
  %".138" = getelementptr i64, ptr %".66", i64 %".73"
  %".139" = load i64, ptr %".138"
  %".140" = getelementptr i64, ptr %".66", i64 %".74"
  %".141" = load i64, ptr %".140"
  %".142" = getelementptr i64, ptr %".66", i64 %".11"
  %".143" = load i64, ptr %".142"
  br label %"do"
for.done.if.if.else:
  %".295" = getelementptr i64, ptr %".72", i64 0
  store i64 3, ptr %".295"
  br label %"for.done.if.if.endif"
for.done.if.if.endif:
  br label %"for.done.if.endif"
do:
  %".145" = getelementptr i64, ptr %".81", i64 0
  %".146" = load i64, ptr %".145"
  %".147" = call ptr @"data"(ptr %".1", i64 %".146")
  %".148" = getelementptr i64, ptr %".69", i64 %".76"
  %".149" = load i64, ptr %".148"
  %".150" = getelementptr i64, ptr %".81", i64 1
  %".151" = load i64, ptr %".150"
  %".152" = mul i64 %".149", %".151"
  %".153" = getelementptr i8, ptr %".147", i64 %".152"
  %".154" = getelementptr i64, ptr %".102", i64 0
  %".155" = load i64, ptr %".154"
  %".156" = call ptr @"data"(ptr %".1", i64 %".155")
  %".157" = getelementptr i64, ptr %".69", i64 %".97"
  %".158" = load i64, ptr %".157"
  %".159" = getelementptr i64, ptr %".102", i64 1
  %".160" = load i64, ptr %".159"
  %".161" = mul i64 %".158", %".160"
  %".162" = getelementptr i8, ptr %".156", i64 %".161"
  %".163" = getelementptr i64, ptr %".1", i64 0
  %".164" = load i64, ptr %".163"
  %".165" = inttoptr i64 %".164" to ptr
  %".166" = getelementptr i64, ptr %".1", i64 8
  %".167" = load i64, ptr %".166"
  %".168" = inttoptr i64 %".167" to ptr
  %".169" = getelementptr i64, ptr %".1", i64 19
  %".170" = load i64, ptr %".169"
  %".171" = getelementptr i64, ptr %".1", i64 18
  %".172" = load i64, ptr %".171"
  %".173" = inttoptr i64 %".172" to ptr
  %".174" = getelementptr i64, ptr %".1", i64 13
  %".175" = load i64, ptr %".174"
  %".176" = getelementptr i64, ptr %".168", i64 %".175"
  %".177" = load i64, ptr %".176"
  %".178" = mul i64 0, %".170"
  %".179" = add i64 %".177", %".178"
  %".180" = getelementptr i64, ptr %".165", i64 13
  %".181" = load i64, ptr %".180"
  %".182" = mul i64 %".179", %".181"
  %".183" = getelementptr i8, ptr %".173", i64 %".182"
  %".184" = select  i1 %".119", ptr %".153", ptr %".162"
  %".185" = select  i1 %".119", i64 %".87", i64 %".108"
  %".186" = select  i1 %".119", i64 %".95", i64 %".116"
  %".187" = select  i1 %".119", ptr %".162", ptr %".153"
  %".188" = select  i1 %".119", i64 %".116", i64 %".95"
  %".189" = select  i1 %".119", i64 %".112", i64 %".91"
  %".190" = getelementptr i64, ptr %".6", i64 24
  %".191" = load i64, ptr %".190"
  %".192" = inttoptr i64 %".191" to void (ptr, i64, i64, ptr, i64, i64, ptr, i64, i64, i64, i64, i64, ptr)*
  call void %".192"(ptr %".184", i64 %".185", i64 %".186", ptr %".187", i64 %".188", i64 %".189", ptr %".183", i64 %".133", i64 %".137", i64 %".139", i64 %".141", i64 %".143", ptr %".72")
  %".194" = call i1 @"advance"(ptr %".1", i64 0, i64 %".73")
  br i1 %".194", label %"do", label %"do.done"
do.done:
  %".196" = getelementptr i64, ptr %".6", i64 40
  %".197" = load i64, ptr %".196"
  %".198" = icmp sgt i64 %".197", 0
  br i1 %".198", label %"do.done.if", label %"do.done.endif"
do.done.if:
  %".200" = getelementptr i64, ptr %".1", i64 15
  %".201" = load i64, ptr %".200"
  %".202" = inttoptr i64 %".201" to ptr
  %".203" = sub i64 %".11", 2
  %".204" = sub i64 %".11", 1
  %".205" = getelementptr i64, ptr %".202", i64 %".204"
  %".206" = load i64, ptr %".205"
  %".207" = icmp sgt i64 %".206", 1
  %".208" = select  i1 %".207", i64 %".204", i64 %".203"
  %".209" = getelementptr i64, ptr %".1", i64 10
  store i64 %".208", ptr %".209"
  %".211" = getelementptr i64, ptr %".202", i64 %".208"
  %".212" = load i64, ptr %".211"
  %".213" = getelementptr i64, ptr %".1", i64 11
  store i64 %".212", ptr %".213"
  %".215" = getelementptr i64, ptr %".1", i64 2
  %".216" = load i64, ptr %".215"
  %".217" = inttoptr i64 %".216" to ptr
  %".218" = getelementptr i64, ptr %".1", i64 17
  %".219" = load i64, ptr %".218"
  %".220" = inttoptr i64 %".219" to ptr
  %".221" = getelementptr i64, ptr %".1", i64 13
  %".222" = load i64, ptr %".221"
  store i64 0, i64* %".223"
  br label %"for.1"
do.done.endif:
  br label %"for.done.if.if.endif"
for.1:
  %".226" = load i64, i64* %".223"
  %".227" = icmp slt i64 %".226", %".222"
  br i1 %".227", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".229" = getelementptr i64, ptr %".1", i64 14
  %".230" = load i64, ptr %".229"
  %".231" = inttoptr i64 %".230" to ptr
  %".232" = mul i64 %".226", 5
  %".233" = getelementptr i64, ptr %".231", i64 %".232"
  %".234" = mul i64 %".226", 4
  %".235" = getelementptr i64, ptr %".220", i64 %".234"
  %".236" = getelementptr i64, ptr %".233", i64 0
  %".237" = load i64, ptr %".236"
  %".238" = call ptr @"data"(ptr %".1", i64 %".237")
  %".239" = ptrtoint ptr %".238" to i64
  %".240" = getelementptr i64, ptr %".235", i64 0
  store i64 %".239", ptr %".240"
  %".242" = getelementptr i64, ptr %".233", i64 1
  %".243" = load i64, ptr %".242"
  %".244" = getelementptr i64, ptr %".235", i64 1
  store i64 %".243", ptr %".244"
  %".246" = getelementptr i64, ptr %".233", i64 2
  %".247" = load i64, ptr %".246"
  %".248" = call i64 @"stride_along"(ptr %".1", i64 %".247")
  %".249" = getelementptr i64, ptr %".235", i64 2
  store i64 %".248", ptr %".249"
  %".251" = getelementptr i64, ptr %".233", i64 4
  %".252" = load i64, ptr %".251"
  %".253" = getelementptr i64, ptr %".235", i64 3
  store i64 %".252", ptr %".253"
  %".255" = load i64, i64* %".223"
  %".256" = add i64 %".255", 1
  store i64 %".256", i64* %".223"
  br label %"for.1"
for.done.1:
  %".259" = getelementptr i64, ptr %".6", i64 12
  %".260" = load i64, ptr %".259"
  %".261" = call ptr @"data"(ptr %".1", i64 %".260")
  %".262" = ptrtoint ptr %".261" to i64
  %".263" = getelementptr i64, ptr %".1", i64 18
  store i64 %".262", ptr %".263"
  %".265" = getelementptr i64, ptr %".6", i64 14
  %".266" = load i64, ptr %".265"
  %".267" = call i64 @"stride_along"(ptr %".1", i64 %".266")
  %".268" = getelementptr i64, ptr %".1", i64 19
  store i64 %".267", ptr %".268"
  call void @"reset"(ptr %".1")
  br label %"do.1"
do.1:
  %".272" = getelementptr i64, ptr %".1", i64 11
  %".273" = load i64, ptr %".272"
  %".274" = getelementptr i64, ptr %".1", i64 20
  %".275" = load i64, ptr %".274"
  store i64 0, i64* %".276"
  br label %"for.2"
do.done.1:
  br label %"do.done.endif"
for.2:
  %".279" = load i64, i64* %".276"
  %".280" = icmp slt i64 %".279", %".273"
  br i1 %".280", label %"for.body.2", label %"for.done.2"
for.body.2:
  %".282" = sub i64 %".273", %".279"
  %".283" = icmp slt i64 %".282", %".275"
  %".284" = select  i1 %".283", i64 %".282", i64 %".275"
  %".285" = call ptr @"post_block"(ptr %".1", ptr null, i64 %".284", i64 %".279")
  call void @"store_block"(ptr %".1", ptr %".285", i64 %".284", i64 %".279")
  %".287" = load i64, i64* %".276"
  %".288" = add i64 %".287", %".275"
  store i64 %".288", i64* %".276"
  br label %"for.2"
for.done.2:
  %".291" = call i1 @"advance"(ptr %".1", i64 0, i64 %".11")
  br i1 %".291", label %"do.1", label %"do.done.1"
for.done.if.else.if:
  %".302" = getelementptr i64, ptr %".6", i64 35
  %".303" = load i64, ptr %".302"
  %".304" = icmp ne i64 %".303", 0
  br label %"do.2"
for.done.if.else.else:
  br label %"do.4"
for.done.if.else.endif:
  br label %"for.done.if.endif"
do.2:
  %".306" = getelementptr i8, ptr %".41", i64 4096
  %".307" = getelementptr i64, ptr %".1", i64 20
  %".308" = load i64, ptr %".307"
  %".309" = getelementptr i64, ptr %".6", i64 16
  %".310" = load i64, ptr %".309"
  %".311" = inttoptr i64 %".310" to void (ptr, i64)*
  call void %".311"(ptr %".41", i64 %".308")
  %".313" = getelementptr i64, ptr %".6", i64 16
  %".314" = load i64, ptr %".313"
  %".315" = inttoptr i64 %".314" to void (ptr, i64)*
  call void %".315"(ptr %".306", i64 1)
  %".317" = xor i1 %".31", -1
  br i1 %".317", label %"do.2.if", label %"do.2.endif"
do.done.2:
  br label %"for.done.if.else.endif"
do.2.if:
  br label %"do.3"
do.2.endif:
  %".357" = getelementptr i64, ptr %".1", i64 11
  %".358" = load i64, ptr %".357"
  %".359" = icmp slt i64 %".358", %".308"
  %".360" = select  i1 %".359", i64 %".358", i64 %".308"
  %".361" = select  i1 %".31", i64 0, i64 %".360"
  %".362" = xor i1 %".304", -1
  br i1 %".362", label %"do.2.endif.if", label %"do.2.endif.endif"
do.3:
  %".320" = getelementptr i64, ptr %".1", i64 11
  %".321" = load i64, ptr %".320"
  %".322" = getelementptr i64, ptr %".1", i64 20
  %".323" = load i64, ptr %".322"
  store i64 0, i64* %".324"
  br label %"for.3"
do.done.3:
  br label %"do.2.endif"
for.3:
  %".327" = load i64, i64* %".324"
  %".328" = icmp slt i64 %".327", %".321"
  br i1 %".328", label %"for.body.3", label %"for.done.3"
for.body.3:
  %".330" = sub i64 %".321", %".327"
  %".331" = icmp slt i64 %".330", %".323"
  %".332" = select  i1 %".331", i64 %".330", i64 %".323"
  %".333" = getelementptr i64, ptr %".1", i64 0
  %".334" = load i64, ptr %".333"
  %".335" = inttoptr i64 %".334" to ptr
  %".336" = getelementptr i64, ptr %".335", i64 8
  %".337" = load i64, ptr %".336"
  call void @"eval_block"(ptr %".1", i64 %".332", i64 %".327", ptr null, i64 0, i64 %".337")
  %".339" = getelementptr ptr, ptr %".38", i64 %".43"
  %".340" = load ptr, ptr %".339"
  br i1 %".304", label %"for.body.3.if", label %"for.body.3.else"
for.done.3:
  %".354" = call i1 @"advance"(ptr %".1", i64 %".11", i64 %".13")
  br i1 %".354", label %"do.3", label %"do.done.3"
for.body.3.if:
  %".342" = inttoptr i64 %".303" to void (ptr, ptr, i64)*
  call void %".342"(ptr %".306", ptr %".340", i64 %".332")
  br label %"for.body.3.endif"
for.body.3.else:
  %".345" = getelementptr i64, ptr %".6", i64 17
  %".346" = load i64, ptr %".345"
  %".347" = inttoptr i64 %".346" to void (ptr, ptr, i64)*
  call void %".347"(ptr %".41", ptr %".340", i64 %".332")
  br label %"for.body.3.endif"
for.body.3.endif:
  %".350" = load i64, i64* %".324"
  %".351" = add i64 %".350", %".323"
  store i64 %".351", i64* %".324"
  br label %"for.3"
do.2.endif.if:
  %".364" = getelementptr i64, ptr %".6", i64 18
  %".365" = load i64, ptr %".364"
  %".366" = inttoptr i64 %".365" to void (ptr, ptr, i64)*
  call void %".366"(ptr %".306", ptr %".41", i64 %".361")
  br label %"do.2.endif.endif"
do.2.endif.endif:
  %".369" = icmp ne i64 %".50", 0
  br i1 %".369", label %"do.2.endif.endif.if", label %"do.2.endif.endif.endif"
do.2.endif.endif.if:
  %".371" = inttoptr i64 %".50" to void (ptr, i64, i64)*
  call void %".371"(ptr %".306", i64 %".32", i64 1)
  br label %"do.2.endif.endif.endif"
do.2.endif.endif.endif:
  br i1 %".53", label %"do.2.endif.endif.endif.if", label %"do.2.endif.endif.endif.endif"
do.2.endif.endif.endif.if:
  %".375" = getelementptr i64, ptr %".1", i64 0
  %".376" = load i64, ptr %".375"
  %".377" = inttoptr i64 %".376" to ptr
  %".378" = getelementptr i64, ptr %".1", i64 0
  %".379" = load i64, ptr %".378"
  %".380" = inttoptr i64 %".379" to ptr
  %".381" = getelementptr i64, ptr %".1", i64 8
  %".382" = load i64, ptr %".381"
  %".383" = inttoptr i64 %".382" to ptr
  %".384" = getelementptr i64, ptr %".1", i64 19
  %".385" = load i64, ptr %".384"
  %".386" = getelementptr i64, ptr %".1", i64 18
  %".387" = load i64, ptr %".386"
  %".388" = inttoptr i64 %".387" to ptr
  %".389" = getelementptr i64, ptr %".1", i64 13
  %".390" = load i64, ptr %".389"
  %".391" = getelementptr i64, ptr %".383", i64 %".390"
  %".392" = load i64, ptr %".391"
  %".393" = mul i64 0, %".385"
  %".394" = add i64 %".392", %".393"
  %".395" = getelementptr i64, ptr %".380", i64 13
  %".396" = load i64, ptr %".395"
  %".397" = mul i64 %".394", %".396"
  %".398" = getelementptr i8, ptr %".388", i64 %".397"
  %".399" = getelementptr i64, ptr %".377", i64 15
  %".400" = load i64, ptr %".399"
  %".401" = getelementptr i64, ptr %".377", i64 13
  %".402" = load i64, ptr %".401"
  %".403" = inttoptr i64 %".400" to void (ptr, i64, ptr, i64)*
  call void %".403"(ptr %".398", i64 %".402", ptr %".306", i64 1)
  br label %"do.2.endif.endif.endif.endif"
do.2.endif.endif.endif.endif:
  %".406" = call ptr @"post_block"(ptr %".1", ptr %".306", i64 1, i64 0)
  %".407" = getelementptr i64, ptr %".1", i64 0
  %".408" = load i64, ptr %".407"
  %".409" = inttoptr i64 %".408" to ptr
  %".410" = getelementptr i64, ptr %".1", i64 0
  %".411" = load i64, ptr %".410"
  %".412" = inttoptr i64 %".411" to ptr
  %".413" = getelementptr i64, ptr %".1", i64 8
  %".414" = load i64, ptr %".413"
  %".415" = inttoptr i64 %".414" to ptr
  %".416" = getelementptr i64, ptr %".1", i64 19
  %".417" = load i64, ptr %".416"
  %".418" = getelementptr i64, ptr %".1", i64 18
  %".419" = load i64, ptr %".418"
  %".420" = inttoptr i64 %".419" to ptr
  %".421" = getelementptr i64, ptr %".1", i64 13
  %".422" = load i64, ptr %".421"
  %".423" = getelementptr i64, ptr %".415", i64 %".422"
  %".424" = load i64, ptr %".423"
  %".425" = mul i64 0, %".417"
  %".426" = add i64 %".424", %".425"
  %".427" = getelementptr i64, ptr %".412", i64 13
  %".428" = load i64, ptr %".427"
  %".429" = mul i64 %".426", %".428"
  %".430" = getelementptr i8, ptr %".420", i64 %".429"
  %".431" = getelementptr i64, ptr %".409", i64 15
  %".432" = load i64, ptr %".431"
  %".433" = getelementptr i64, ptr %".409", i64 13
  %".434" = load i64, ptr %".433"
  %".435" = inttoptr i64 %".432" to void (ptr, i64, ptr, i64)*
  call void %".435"(ptr %".430", i64 %".434", ptr %".406", i64 1)
  %".437" = call i1 @"advance"(ptr %".1", i64 0, i64 %".11")
  br i1 %".437", label %"do.2", label %"do.done.2"
do.4:
  %".441" = getelementptr i64, ptr %".1", i64 11
  %".442" = load i64, ptr %".441"
  %".443" = getelementptr i64, ptr %".1", i64 20
  %".444" = load i64, ptr %".443"
  store i64 0, i64* %".445"
  br label %"for.4"
do.done.4:
  br label %"for.done.if.else.endif"
for.4:
  %".448" = load i64, i64* %".445"
  %".449" = icmp slt i64 %".448", %".442"
  br i1 %".449", label %"for.body.4", label %"for.done.4"
for.body.4:
  %".451" = sub i64 %".442", %".448"
  %".452" = icmp slt i64 %".451", %".444"
  %".453" = select  i1 %".452", i64 %".451", i64 %".444"
  %".454" = getelementptr i64, ptr %".6", i64 16
  %".455" = load i64, ptr %".454"
  %".456" = inttoptr i64 %".455" to void (ptr, i64)*
  call void %".456"(ptr %".41", i64 %".453")
  %".458" = xor i1 %".31", -1
  br i1 %".458", label %"for.body.4.if", label %"for.body.4.endif"
for.done.4:
  %".490" = call i1 @"advance"(ptr %".1", i64 0, i64 %".11")
  br i1 %".490", label %"do.4", label %"do.done.4"
for.body.4.if:
  br label %"do.5"
for.body.4.endif:
  %".476" = icmp ne i64 %".50", 0
  br i1 %".476", label %"for.body.4.endif.if", label %"for.body.4.endif.endif"
do.5:
  %".461" = getelementptr i64, ptr %".1", i64 0
  %".462" = load i64, ptr %".461"
  %".463" = inttoptr i64 %".462" to ptr
  %".464" = getelementptr i64, ptr %".463", i64 8
  %".465" = load i64, ptr %".464"
  call void @"eval_block"(ptr %".1", i64 %".453", i64 %".448", ptr null, i64 0, i64 %".465")
  %".467" = getelementptr i64, ptr %".6", i64 17
  %".468" = load i64, ptr %".467"
  %".469" = getelementptr ptr, ptr %".38", i64 %".43"
  %".470" = load ptr, ptr %".469"
  %".471" = inttoptr i64 %".468" to void (ptr, ptr, i64)*
  call void %".471"(ptr %".41", ptr %".470", i64 %".453")
  %".473" = call i1 @"advance"(ptr %".1", i64 %".11", i64 %".13")
  br i1 %".473", label %"do.5", label %"do.done.5"
do.done.5:
  br label %"for.body.4.endif"
for.body.4.endif.if:
  %".478" = inttoptr i64 %".50" to void (ptr, i64, i64)*
  call void %".478"(ptr %".41", i64 %".32", i64 %".453")
  br label %"for.body.4.endif.endif"
for.body.4.endif.endif:
  br i1 %".53", label %"for.body.4.endif.endif.if", label %"for.body.4.endif.endif.endif"
for.body.4.endif.endif.if:
  call void @"store_block"(ptr %".1", ptr %".41", i64 %".453", i64 %".448")
  br label %"for.body.4.endif.endif.endif"
for.body.4.endif.endif.endif:
  %".484" = call ptr @"post_block"(ptr %".1", ptr %".41", i64 %".453", i64 %".448")
  call void @"store_block"(ptr %".1", ptr %".484", i64 %".453", i64 %".448")
  %".486" = load i64, i64* %".445"
  %".487" = add i64 %".486", %".444"
  store i64 %".487", i64* %".445"
  br label %"for.4"
}

define internal void @"run_arg"(ptr %".1") noinline nounwind
{
entry:
  %".14" = alloca i64
  %".16" = alloca i64
  %".71" = alloca i64
  %".135" = alloca i64
  %".148" = alloca i64
  br label %"body"
body:
  %".4" = getelementptr i64, ptr %".1", i64 0
  %".5" = load i64, ptr %".4"
  %".6" = inttoptr i64 %".5" to ptr
  %".7" = getelementptr i64, ptr %".1", i64 15
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".6", i64 3
  %".11" = load i64, ptr %".10"
  %".12" = getelementptr i64, ptr %".1", i64 12
  %".13" = load i64, ptr %".12"
  store i64 1, i64* %".14"
  store i64 %".11", i64* %".16"
  br label %"for"
for:
  %".19" = load i64, i64* %".16"
  %".20" = icmp slt i64 %".19", %".13"
  br i1 %".20", label %"for.body", label %"for.done"
for.body:
  %".22" = load i64, i64* %".14"
  %".23" = getelementptr i64, ptr %".9", i64 %".19"
  %".24" = load i64, ptr %".23"
  %".25" = mul i64 %".22", %".24"
  store i64 %".25", i64* %".14"
  %".27" = load i64, i64* %".16"
  %".28" = add i64 %".27", 1
  store i64 %".28", i64* %".16"
  br label %"for"
for.done:
  %".31" = call i1 @"empty"(ptr %".1", i64 %".11", i64 %".13")
  %".32" = load i64, i64* %".14"
  %".33" = getelementptr i64, ptr %".1", i64 2
  %".34" = load i64, ptr %".33"
  %".35" = inttoptr i64 %".34" to ptr
  %".36" = getelementptr i64, ptr %".1", i64 5
  %".37" = load i64, ptr %".36"
  %".38" = inttoptr i64 %".37" to ptr
  %".39" = getelementptr i64, ptr %".1", i64 9
  %".40" = load i64, ptr %".39"
  %".41" = inttoptr i64 %".40" to ptr
  %".42" = getelementptr i64, ptr %".1", i64 16
  %".43" = load i64, ptr %".42"
  %".44" = inttoptr i64 %".43" to ptr
  %".45" = getelementptr i8, ptr %".44", i64 4096
  %".46" = getelementptr i8, ptr %".44", i64 8192
  %".47" = getelementptr i64, ptr %".6", i64 11
  %".48" = load i64, ptr %".47"
  %".49" = getelementptr i64, ptr %".6", i64 5
  %".50" = load i64, ptr %".49"
  %".51" = add i64 %".50", 1
  %".52" = getelementptr i64, ptr %".35", i64 %".51"
  %".53" = load i64, ptr %".52"
  %".54" = call i1 @"empty"(ptr %".1", i64 0, i64 %".11")
  %".55" = xor i1 %".54", -1
  br i1 %".55", label %"for.done.if", label %"for.done.endif"
for.done.if:
  call void @"reset"(ptr %".1")
  %".58" = icmp ne i64 %".53", 0
  br i1 %".58", label %"for.done.if.if", label %"for.done.if.else"
for.done.endif:
  ret void
for.done.if.if:
  br label %"do"
for.done.if.else:
  br label %"do.1"
for.done.if.endif:
  br label %"for.done.endif"
do:
  %".61" = getelementptr i64, ptr %".6", i64 16
  %".62" = load i64, ptr %".61"
  %".63" = inttoptr i64 %".62" to void (ptr, i64)*
  call void %".63"(ptr %".46", i64 1)
  %".65" = getelementptr i64, ptr %".46", i64 2
  store i64 0, ptr %".65"
  %".67" = getelementptr i64, ptr %".1", i64 11
  %".68" = load i64, ptr %".67"
  %".69" = getelementptr i64, ptr %".1", i64 20
  %".70" = load i64, ptr %".69"
  store i64 0, i64* %".71"
  br label %"for.1"
do.done:
  br label %"for.done.if.endif"
for.1:
  %".74" = load i64, i64* %".71"
  %".75" = icmp slt i64 %".74", %".68"
  br i1 %".75", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".77" = sub i64 %".68", %".74"
  %".78" = icmp slt i64 %".77", %".70"
  %".79" = select  i1 %".78", i64 %".77", i64 %".70"
  %".80" = getelementptr i64, ptr %".1", i64 0
  %".81" = load i64, ptr %".80"
  %".82" = inttoptr i64 %".81" to ptr
  %".83" = getelementptr i64, ptr %".82", i64 8
  %".84" = load i64, ptr %".83"
  call void @"eval_block"(ptr %".1", i64 %".79", i64 %".74", ptr null, i64 0, i64 %".84")
  %".86" = getelementptr i64, ptr %".6", i64 21
  %".87" = load i64, ptr %".86"
  %".88" = getelementptr ptr, ptr %".38", i64 %".48"
  %".89" = load ptr, ptr %".88"
  %".90" = inttoptr i64 %".87" to void (ptr, ptr, i64, i64)*
  call void %".90"(ptr %".46", ptr %".89", i64 %".79", i64 %".74")
  %".92" = load i64, i64* %".71"
  %".93" = add i64 %".92", %".70"
  store i64 %".93", i64* %".71"
  br label %"for.1"
for.done.1:
  %".96" = getelementptr i8, ptr %".46", i64 16
  %".97" = getelementptr i64, ptr %".1", i64 0
  %".98" = load i64, ptr %".97"
  %".99" = inttoptr i64 %".98" to ptr
  %".100" = getelementptr i64, ptr %".1", i64 0
  %".101" = load i64, ptr %".100"
  %".102" = inttoptr i64 %".101" to ptr
  %".103" = getelementptr i64, ptr %".1", i64 8
  %".104" = load i64, ptr %".103"
  %".105" = inttoptr i64 %".104" to ptr
  %".106" = getelementptr i64, ptr %".1", i64 19
  %".107" = load i64, ptr %".106"
  %".108" = getelementptr i64, ptr %".1", i64 18
  %".109" = load i64, ptr %".108"
  %".110" = inttoptr i64 %".109" to ptr
  %".111" = getelementptr i64, ptr %".1", i64 13
  %".112" = load i64, ptr %".111"
  %".113" = getelementptr i64, ptr %".105", i64 %".112"
  %".114" = load i64, ptr %".113"
  %".115" = mul i64 0, %".107"
  %".116" = add i64 %".114", %".115"
  %".117" = getelementptr i64, ptr %".102", i64 13
  %".118" = load i64, ptr %".117"
  %".119" = mul i64 %".116", %".118"
  %".120" = getelementptr i8, ptr %".110", i64 %".119"
  %".121" = getelementptr i64, ptr %".99", i64 15
  %".122" = load i64, ptr %".121"
  %".123" = getelementptr i64, ptr %".99", i64 13
  %".124" = load i64, ptr %".123"
  %".125" = inttoptr i64 %".122" to void (ptr, i64, ptr, i64)*
  call void %".125"(ptr %".120", i64 %".124", ptr %".96", i64 1)
  %".127" = call i1 @"advance"(ptr %".1", i64 0, i64 %".11")
  br i1 %".127", label %"do", label %"do.done"
do.1:
  %".131" = getelementptr i64, ptr %".1", i64 11
  %".132" = load i64, ptr %".131"
  %".133" = getelementptr i64, ptr %".1", i64 20
  %".134" = load i64, ptr %".133"
  store i64 0, i64* %".135"
  br label %"for.2"
do.done.1:
  br label %"for.done.if.endif"
for.2:
  %".138" = load i64, i64* %".135"
  %".139" = icmp slt i64 %".138", %".132"
  br i1 %".139", label %"for.body.2", label %"for.done.2"
for.body.2:
  %".141" = sub i64 %".132", %".138"
  %".142" = icmp slt i64 %".141", %".134"
  %".143" = select  i1 %".142", i64 %".141", i64 %".134"
  %".144" = getelementptr i64, ptr %".6", i64 16
  %".145" = load i64, ptr %".144"
  %".146" = inttoptr i64 %".145" to void (ptr, i64)*
  call void %".146"(ptr %".44", i64 %".143")
  store i64 0, i64* %".148"
  br label %"for.3"
for.done.2:
  %".186" = call i1 @"advance"(ptr %".1", i64 0, i64 %".11")
  br i1 %".186", label %"do.1", label %"do.done.1"
for.3:
  %".151" = load i64, i64* %".148"
  %".152" = icmp slt i64 %".151", %".143"
  br i1 %".152", label %"for.body.3", label %"for.done.3"
for.body.3:
  %".154" = getelementptr i64, ptr %".45", i64 %".151"
  store i64 0, ptr %".154"
  %".156" = load i64, i64* %".148"
  %".157" = add i64 %".156", 1
  store i64 %".157", i64* %".148"
  br label %"for.3"
for.done.3:
  %".160" = xor i1 %".31", -1
  br i1 %".160", label %"for.done.3.if", label %"for.done.3.endif"
for.done.3.if:
  br label %"do.2"
for.done.3.endif:
  call void @"store_block"(ptr %".1", ptr %".45", i64 %".143", i64 %".138")
  %".182" = load i64, i64* %".135"
  %".183" = add i64 %".182", %".134"
  store i64 %".183", i64* %".135"
  br label %"for.2"
do.2:
  %".163" = getelementptr i64, ptr %".1", i64 0
  %".164" = load i64, ptr %".163"
  %".165" = inttoptr i64 %".164" to ptr
  %".166" = getelementptr i64, ptr %".165", i64 8
  %".167" = load i64, ptr %".166"
  call void @"eval_block"(ptr %".1", i64 %".143", i64 %".138", ptr null, i64 0, i64 %".167")
  %".169" = sub i64 %".13", 1
  %".170" = getelementptr i64, ptr %".41", i64 %".169"
  %".171" = load i64, ptr %".170"
  %".172" = getelementptr i64, ptr %".6", i64 20
  %".173" = load i64, ptr %".172"
  %".174" = getelementptr ptr, ptr %".38", i64 %".48"
  %".175" = load ptr, ptr %".174"
  %".176" = inttoptr i64 %".173" to void (ptr, ptr, ptr, i64, i64)*
  call void %".176"(ptr %".44", ptr %".45", ptr %".175", i64 %".143", i64 %".171")
  %".178" = call i1 @"advance"(ptr %".1", i64 %".11", i64 %".13")
  br i1 %".178", label %"do.2", label %"do.done.2"
do.done.2:
  br label %"for.done.3.endif"
}

define internal void @"run_scan"(ptr %".1") noinline nounwind
{
entry:
  %".42" = alloca i64
  %".78" = alloca i64
  br label %"body"
body:
  %".4" = getelementptr i64, ptr %".1", i64 0
  %".5" = load i64, ptr %".4"
  %".6" = inttoptr i64 %".5" to ptr
  %".7" = getelementptr i64, ptr %".1", i64 2
  %".8" = load i64, ptr %".7"
  %".9" = inttoptr i64 %".8" to ptr
  %".10" = getelementptr i64, ptr %".1", i64 5
  %".11" = load i64, ptr %".10"
  %".12" = inttoptr i64 %".11" to ptr
  %".13" = getelementptr i64, ptr %".1", i64 9
  %".14" = load i64, ptr %".13"
  %".15" = inttoptr i64 %".14" to ptr
  %".16" = getelementptr i64, ptr %".1", i64 16
  %".17" = load i64, ptr %".16"
  %".18" = inttoptr i64 %".17" to ptr
  %".19" = getelementptr i8, ptr %".18", i64 4096
  %".20" = getelementptr i64, ptr %".6", i64 3
  %".21" = load i64, ptr %".20"
  %".22" = getelementptr i64, ptr %".1", i64 12
  %".23" = load i64, ptr %".22"
  %".24" = getelementptr i64, ptr %".6", i64 11
  %".25" = load i64, ptr %".24"
  %".26" = getelementptr i64, ptr %".6", i64 5
  %".27" = load i64, ptr %".26"
  %".28" = add i64 %".27", 1
  %".29" = getelementptr i64, ptr %".9", i64 %".28"
  %".30" = load i64, ptr %".29"
  %".31" = call i1 @"empty"(ptr %".1", i64 0, i64 %".23")
  %".32" = xor i1 %".31", -1
  br i1 %".32", label %"body.if", label %"body.endif"
body.if:
  call void @"reset"(ptr %".1")
  %".35" = icmp ne i64 %".30", 0
  br i1 %".35", label %"body.if.if", label %"body.if.else"
body.endif:
  ret void
body.if.if:
  br label %"do"
body.if.else:
  br label %"do.1"
body.if.endif:
  br label %"body.endif"
do:
  %".38" = getelementptr i64, ptr %".1", i64 11
  %".39" = load i64, ptr %".38"
  %".40" = getelementptr i64, ptr %".1", i64 20
  %".41" = load i64, ptr %".40"
  store i64 0, i64* %".42"
  br label %"for"
do.done:
  br label %"body.if.endif"
for:
  %".45" = load i64, i64* %".42"
  %".46" = icmp slt i64 %".45", %".39"
  br i1 %".46", label %"for.body", label %"for.done"
for.body:
  %".48" = sub i64 %".39", %".45"
  %".49" = icmp slt i64 %".48", %".41"
  %".50" = select  i1 %".49", i64 %".48", i64 %".41"
  %".51" = getelementptr i64, ptr %".1", i64 0
  %".52" = load i64, ptr %".51"
  %".53" = inttoptr i64 %".52" to ptr
  %".54" = getelementptr i64, ptr %".53", i64 8
  %".55" = load i64, ptr %".54"
  call void @"eval_block"(ptr %".1", i64 %".50", i64 %".45", ptr null, i64 0, i64 %".55")
  %".57" = icmp eq i64 %".45", 0
  %".58" = zext i1 %".57" to i64
  %".59" = getelementptr i64, ptr %".6", i64 23
  %".60" = load i64, ptr %".59"
  %".61" = getelementptr ptr, ptr %".12", i64 %".25"
  %".62" = load ptr, ptr %".61"
  %".63" = inttoptr i64 %".60" to void (ptr, ptr, i64, ptr, i64)*
  call void %".63"(ptr %".18", ptr %".62", i64 %".50", ptr %".19", i64 %".58")
  call void @"store_block"(ptr %".1", ptr %".18", i64 %".50", i64 %".45")
  %".66" = load i64, i64* %".42"
  %".67" = add i64 %".66", %".41"
  store i64 %".67", i64* %".42"
  br label %"for"
for.done:
  %".70" = call i1 @"advance"(ptr %".1", i64 0, i64 %".21")
  br i1 %".70", label %"do", label %"do.done"
do.1:
  %".74" = getelementptr i64, ptr %".1", i64 11
  %".75" = load i64, ptr %".74"
  %".76" = getelementptr i64, ptr %".1", i64 20
  %".77" = load i64, ptr %".76"
  store i64 0, i64* %".78"
  br label %"for.1"
do.done.1:
  br label %"body.if.endif"
for.1:
  %".81" = load i64, i64* %".78"
  %".82" = icmp slt i64 %".81", %".75"
  br i1 %".82", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".84" = sub i64 %".75", %".81"
  %".85" = icmp slt i64 %".84", %".77"
  %".86" = select  i1 %".85", i64 %".84", i64 %".77"
  br label %"do.2"
for.done.1:
  %".112" = call i1 @"advance"(ptr %".1", i64 0, i64 %".21")
  br i1 %".112", label %"do.1", label %"do.done.1"
do.2:
  %".88" = getelementptr i64, ptr %".1", i64 0
  %".89" = load i64, ptr %".88"
  %".90" = inttoptr i64 %".89" to ptr
  %".91" = getelementptr i64, ptr %".90", i64 8
  %".92" = load i64, ptr %".91"
  call void @"eval_block"(ptr %".1", i64 %".86", i64 %".81", ptr null, i64 0, i64 %".92")
  %".94" = sub i64 %".23", 1
  %".95" = getelementptr i64, ptr %".15", i64 %".94"
  %".96" = load i64, ptr %".95"
  %".97" = icmp eq i64 %".96", 0
  %".98" = zext i1 %".97" to i64
  %".99" = getelementptr i64, ptr %".6", i64 22
  %".100" = load i64, ptr %".99"
  %".101" = getelementptr ptr, ptr %".12", i64 %".25"
  %".102" = load ptr, ptr %".101"
  %".103" = inttoptr i64 %".100" to void (ptr, ptr, i64, i64)*
  call void %".103"(ptr %".18", ptr %".102", i64 %".86", i64 %".98")
  call void @"store_block"(ptr %".1", ptr %".18", i64 %".86", i64 %".81")
  %".106" = call i1 @"advance"(ptr %".1", i64 %".21", i64 %".23")
  br i1 %".106", label %"do.2", label %"do.done.2"
do.done.2:
  %".108" = load i64, i64* %".78"
  %".109" = add i64 %".108", %".77"
  store i64 %".109", i64* %".78"
  br label %"for.1"
}

define internal void @"run_kernel"(ptr %".1", ptr %".2", ptr %".3", ptr %".4", ptr %".5") noinline nounwind
{
entry:
  %".69" = alloca i64
  %".120" = alloca i64
  %".177" = alloca i64
  br label %"body"
body:
  %".8" = alloca i64, i64 21
  %".9" = ptrtoint ptr %".1" to i64
  %".10" = getelementptr i64, i64* %".8", i64 0
  store i64 %".9", i64* %".10"
  %".12" = ptrtoint ptr %".2" to i64
  %".13" = getelementptr i64, i64* %".8", i64 1
  store i64 %".12", i64* %".13"
  %".15" = ptrtoint ptr %".3" to i64
  %".16" = getelementptr i64, i64* %".8", i64 2
  store i64 %".15", i64* %".16"
  %".18" = ptrtoint ptr %".4" to i64
  %".19" = getelementptr i64, i64* %".8", i64 3
  store i64 %".18", i64* %".19"
  %".21" = ptrtoint ptr %".5" to i64
  %".22" = getelementptr i64, i64* %".8", i64 4
  store i64 %".21", i64* %".22"
  %".24" = getelementptr i64, ptr %".1", i64 0
  %".25" = load atomic i64, ptr %".24" acquire, align 8
  %".26" = icmp ne i64 %".25", 0
  br i1 %".26", label %"body.if", label %"body.else"
body.if:
  %".28" = getelementptr i64, ptr %".1", i64 34
  %".29" = atomicrmw add ptr %".28", i64 1 monotonic
  call void @"run_compiled"(i64* %".8", i64 %".25")
  br label %"body.endif"
body.else:
  %".32" = getelementptr i64, ptr %".1", i64 33
  %".33" = atomicrmw add ptr %".32", i64 1 monotonic
  %".34" = getelementptr i64, i64* %".8", i64 0
  %".35" = load i64, i64* %".34"
  %".36" = inttoptr i64 %".35" to ptr
  %".37" = getelementptr i64, i64* %".8", i64 2
  %".38" = load i64, i64* %".37"
  %".39" = inttoptr i64 %".38" to ptr
  %".40" = getelementptr i64, ptr %".36", i64 2
  %".41" = load i64, ptr %".40"
  %".42" = getelementptr i64, ptr %".36", i64 10
  %".43" = load i64, ptr %".42"
  %".44" = getelementptr i64, ptr %".36", i64 6
  %".45" = load i64, ptr %".44"
  %".46" = add i64 %".43", 1
  %".47" = alloca ptr, i64 %".46"
  %".48" = add i64 %".43", 1
  %".49" = getelementptr i64, ptr %".36", i64 37
  %".50" = load i64, ptr %".49"
  %".51" = mul i64 %".48", %".50"
  %".52" = alloca i8, i64 %".51", align 64
  %".53" = alloca [8256 x i8], align 64
  %".54" = alloca i64, i64 512
  %".55" = add i64 %".45", 1
  %".56" = alloca i64, i64 %".55"
  %".57" = add i64 %".41", 1
  %".58" = alloca i64, i64 %".57"
  %".59" = mul i64 %".45", 4
  %".60" = add i64 %".59", 1
  %".61" = alloca i64, i64 %".60"
  %".62" = getelementptr i64, ptr %".36", i64 4
  %".63" = load i64, ptr %".62"
  %".64" = getelementptr i64, ptr %".39", i64 %".63"
  %".65" = getelementptr i64, ptr %".36", i64 5
  %".66" = load i64, ptr %".65"
  %".67" = getelementptr i64, ptr %".39", i64 %".66"
  %".68" = load i64, ptr %".67"
  store i64 1, i64* %".69"
  %".71" = icmp sge i64 %".68", 0
  br i1 %".71", label %"body.else.if", label %"body.else.endif"
body.endif:
  ret void
body.else.if:
  %".73" = getelementptr i64, ptr %".64", i64 %".68"
  %".74" = load i64, ptr %".73"
  store i64 %".74", i64* %".69"
  br label %"body.else.endif"
body.else.endif:
  %".77" = getelementptr i64, ptr %".36", i64 7
  %".78" = load i64, ptr %".77"
  %".79" = getelementptr i64, ptr %".36", i64 %".78"
  %".80" = ptrtoint ptr %".47" to i64
  %".81" = getelementptr i64, i64* %".8", i64 5
  store i64 %".80", i64* %".81"
  %".83" = ptrtoint i8* %".52" to i64
  %".84" = getelementptr i64, i64* %".8", i64 6
  store i64 %".83", i64* %".84"
  %".86" = ptrtoint i64* %".54" to i64
  %".87" = getelementptr i64, i64* %".8", i64 7
  store i64 %".86", i64* %".87"
  %".89" = ptrtoint i64* %".56" to i64
  %".90" = getelementptr i64, i64* %".8", i64 8
  store i64 %".89", i64* %".90"
  %".92" = ptrtoint i64* %".58" to i64
  %".93" = getelementptr i64, i64* %".8", i64 9
  store i64 %".92", i64* %".93"
  %".95" = ptrtoint ptr %".79" to i64
  %".96" = getelementptr i64, i64* %".8", i64 14
  store i64 %".95", i64* %".96"
  %".98" = ptrtoint ptr %".64" to i64
  %".99" = getelementptr i64, i64* %".8", i64 15
  store i64 %".98", i64* %".99"
  %".101" = ptrtoint [8256 x i8]* %".53" to i64
  %".102" = getelementptr i64, i64* %".8", i64 16
  store i64 %".101", i64* %".102"
  %".104" = ptrtoint i64* %".61" to i64
  %".105" = getelementptr i64, i64* %".8", i64 17
  store i64 %".104", i64* %".105"
  %".107" = load i64, i64* %".69"
  %".108" = getelementptr i64, ptr %".36", i64 36
  %".109" = load i64, ptr %".108"
  %".110" = getelementptr i64, i64* %".8", i64 10
  store i64 %".68", i64* %".110"
  %".112" = getelementptr i64, i64* %".8", i64 11
  store i64 %".107", i64* %".112"
  %".114" = getelementptr i64, i64* %".8", i64 12
  store i64 %".41", i64* %".114"
  %".116" = getelementptr i64, i64* %".8", i64 13
  store i64 %".45", i64* %".116"
  %".118" = getelementptr i64, i64* %".8", i64 20
  store i64 %".109", i64* %".118"
  store i64 0, i64* %".120"
  br label %"for"
for:
  %".123" = load i64, i64* %".120"
  %".124" = icmp slt i64 %".123", %".45"
  br i1 %".124", label %"for.body", label %"for.done"
for.body:
  %".126" = getelementptr i64, i64* %".8", i64 14
  %".127" = load i64, i64* %".126"
  %".128" = inttoptr i64 %".127" to ptr
  %".129" = mul i64 %".123", 5
  %".130" = getelementptr i64, ptr %".128", i64 %".129"
  %".131" = mul i64 %".123", 4
  %".132" = getelementptr i64, i64* %".61", i64 %".131"
  %".133" = getelementptr i64, ptr %".130", i64 0
  %".134" = load i64, ptr %".133"
  %".135" = call ptr @"data"(i64* %".8", i64 %".134")
  %".136" = ptrtoint ptr %".135" to i64
  %".137" = getelementptr i64, i64* %".132", i64 0
  store i64 %".136", i64* %".137"
  %".139" = getelementptr i64, ptr %".130", i64 1
  %".140" = load i64, ptr %".139"
  %".141" = getelementptr i64, i64* %".132", i64 1
  store i64 %".140", i64* %".141"
  %".143" = getelementptr i64, ptr %".130", i64 2
  %".144" = load i64, ptr %".143"
  %".145" = call i64 @"stride_along"(i64* %".8", i64 %".144")
  %".146" = getelementptr i64, i64* %".132", i64 2
  store i64 %".145", i64* %".146"
  %".148" = getelementptr i64, ptr %".130", i64 4
  %".149" = load i64, ptr %".148"
  %".150" = getelementptr i64, i64* %".132", i64 3
  store i64 %".149", i64* %".150"
  %".152" = load i64, i64* %".120"
  %".153" = add i64 %".152", 1
  store i64 %".153", i64* %".120"
  br label %"for"
for.done:
  %".156" = getelementptr i64, ptr %".36", i64 12
  %".157" = load i64, ptr %".156"
  %".158" = call ptr @"data"(i64* %".8", i64 %".157")
  %".159" = ptrtoint ptr %".158" to i64
  %".160" = getelementptr i64, i64* %".8", i64 18
  store i64 %".159", i64* %".160"
  %".162" = getelementptr i64, ptr %".36", i64 14
  %".163" = load i64, ptr %".162"
  %".164" = call i64 @"stride_along"(i64* %".8", i64 %".163")
  %".165" = getelementptr i64, i64* %".8", i64 19
  store i64 %".164", i64* %".165"
  %".167" = getelementptr i64, i64* %".8", i64 3
  %".168" = load i64, i64* %".167"
  %".169" = inttoptr i64 %".168" to ptr
  %".170" = getelementptr i64, ptr %".36", i64 9
  %".171" = load i64, ptr %".170"
  %".172" = getelementptr i64, ptr %".36", i64 8
  %".173" = load i64, ptr %".172"
  %".174" = getelementptr i64, ptr %".36", i64 40
  %".175" = load i64, ptr %".174"
  %".176" = add i64 %".173", %".175"
  store i64 0, i64* %".177"
  br label %"for.1"
for.1:
  %".180" = load i64, i64* %".177"
  %".181" = icmp slt i64 %".180", %".176"
  br i1 %".181", label %"for.body.1", label %"for.done.1"
for.body.1:
  %".183" = mul i64 %".180", 8
  %".184" = add i64 %".171", %".183"
  %".185" = getelementptr i64, ptr %".36", i64 %".184"
  %".186" = getelementptr i64, ptr %".185", i64 0
  %".187" = load i64, ptr %".186"
  %".188" = icmp eq i64 %".187", 1
  br i1 %".188", label %"for.body.1.if", label %"for.body.1.endif"
for.done.1:
  %".211" = getelementptr i64, ptr %".36", i64 1
  %".212" = load i64, ptr %".211"
  switch i64 %".212", label %"mode.done" [i64 0, label %"mode0" i64 1, label %"mode1" i64 2, label %"mode2" i64 3, label %"mode3"]
for.body.1.if:
  %".190" = getelementptr i64, ptr %".185", i64 1
  %".191" = load i64, ptr %".190"
  %".192" = getelementptr i64, ptr %".36", i64 37
  %".193" = load i64, ptr %".192"
  %".194" = mul i64 %".191", %".193"
  %".195" = getelementptr i8, i8* %".52", i64 %".194"
  %".196" = getelementptr i64, ptr %".185", i64 3
  %".197" = load i64, ptr %".196"
  %".198" = mul i64 %".197", 16
  %".199" = getelementptr i8, ptr %".169", i64 %".198"
  %".200" = getelementptr i64, ptr %".185", i64 2
  %".201" = load i64, ptr %".200"
  %".202" = getelementptr i64, i64* %".8", i64 20
  %".203" = load i64, i64* %".202"
  %".204" = inttoptr i64 %".201" to void (ptr, ptr, i64, i64)*
  call void %".204"(i8* %".195", ptr %".199", i64 0, i64 %".203")
  br label %"for.body.1.endif"
for.body.1.endif:
  %".207" = load i64, i64* %".177"
  %".208" = add i64 %".207", 1
  store i64 %".208", i64* %".177"
  br label %"for.1"
mode.done:
  br label %"body.endif"
mode0:
  call void @"run_elementwise"(i64* %".8")
  br label %"mode.done"
mode1:
  call void @"run_reduce"(i64* %".8")
  br label %"mode.done"
mode2:
  call void @"run_arg"(i64* %".8")
  br label %"mode.done"
mode3:
  call void @"run_scan"(i64* %".8")
  br label %"mode.done"
}

define i32 @"lazyarray_run"(ptr %".1", ptr %".2", ptr %".3", ptr %".4") nounwind
{
entry:
  %".18" = alloca i64
  br label %"body"
body:
  %".7" = getelementptr ptr, ptr %".2", i64 0
  %".8" = load ptr, ptr %".7"
  %".9" = getelementptr ptr, ptr %".2", i64 1
  %".10" = load ptr, ptr %".9"
  %".11" = getelementptr i64, ptr %".2", i64 2
  %".12" = load i64, ptr %".11"
  %".13" = getelementptr i64, ptr %".2", i64 3
  %".14" = load i64, ptr %".13"
  %".15" = getelementptr ptr, ptr %".1", i64 3
  %".16" = load ptr, ptr %".15"
  %".17" = add i64 %".12", %".14"
  store i64 %".12", i64* %".18"
  br label %"for"
for:
  %".21" = load i64, i64* %".18"
  %".22" = icmp slt i64 %".21", %".17"
  br i1 %".22", label %"for.body", label %"for.done"
for.body:
  %".24" = add i64 %".21", 1
  %".25" = getelementptr i64, ptr %".8", i64 %".24"
  %".26" = load i64, ptr %".25"
  %".27" = getelementptr i64, ptr %".8", i64 %".26"
  call void @"run_kernel"(ptr %".27", ptr %".16", ptr %".10", ptr %".3", ptr %".4")
  %".29" = load i64, i64* %".18"
  %".30" = add i64 %".29", 1
  store i64 %".30", i64* %".18"
  br label %"for"
for.done:
  %".33" = getelementptr i64, ptr %".4", i64 0
  %".34" = load i64, ptr %".33"
  %".35" = trunc i64 %".34" to i32
  ret i32 %".35"
}
