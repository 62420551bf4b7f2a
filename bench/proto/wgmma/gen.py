import sys
pred = sys.argv[1] == "pred"
def wrap(n, ty, kdim):
    nd = n // 2
    outs = ", ".join(f"%{i}" for i in range(nd))
    a = ", ".join(f"%{nd+i}" for i in range(4))
    desc = nd + 4
    cons_out = ", ".join(f'"+f"(d[{i}])' for i in range(nd))
    s = f"static __device__ __forceinline__ void wgmma_{ty}_n{n}(float (&d)[{nd}], const unsigned (&a)[4], unsigned long long desc) {{\n"
    trans = ", 0" if ty != "tf32" else ""
    if pred:
        s += f'  asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{desc+1}, 0;\\nwgmma.mma_async.sync.aligned.m64n{n}k{kdim}.f32.{ty}.{ty} {{{outs}}}, {{{a}}}, %{desc}, p, 1, 1{trans};\\n}}\\n"\n'
    else:
        s += f'  asm volatile("wgmma.mma_async.sync.aligned.m64n{n}k{kdim}.f32.{ty}.{ty} {{{outs}}}, {{{a}}}, %{desc}, 1, 1, 1{trans};\\n"\n'
    s += f"    : {cons_out}\n"
    s += f'    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc)' + (', "r"(1)' if pred else '') + ');\n}\n'
    return s
print("#pragma once")
for n in (64, 128, 256):
    print(wrap(n, "tf32", 8))
    print(wrap(n, "bf16", 16))
