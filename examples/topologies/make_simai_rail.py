#!/usr/bin/env python3
"""Write a rail-optimised single-ToR fabric in SimAI's text topology format.

The wiring follows what SimAI's generator (aliyun/SimAI,
astra-sim-alibabacloud/inputs/topo/gen_Topo_Template.py, Rail_Opti_SingleToR) produces, written
here from its description, not from its code:

  header   node_num gpus_per_server nvswitch_num switch_num link_num gpu_type
  line 2   the switch ids: NVSwitches first (nv_switch_per_server per server), then the ASW
           (leaf) switches, then the PSW (spine) switches, numbered after the GPUs
  links    for each GPU i in order: one link to each NVSwitch of its server (i // gps), then one
           to the ASW of its rail (i mod gps) in its segment (gps x nics_per_asw GPUs); then
           every ASW to every PSW
  a link   "src dst rate latency error_rate", rates and times as ns-3 strings

The two files beside this script (docs/fabrics.md names them):
  Spectrum-X_16g_8gps_100Gbps_A100            --gpus 16 --nic 100Gbps --nvlink 2400Gbps
      --psw 64 --latency 0.0005ms --gpu-type A100: the parameters the first line and links of
      SimAI's own file of that name show (the same 90 nodes and 544 links)
  Rail_Opti_SingleToR_128g_8gps_200Gbps_H20   --gpus 128 --nic 200Gbps --nvlink 900Gbps
      --psw 8 --latency 0.001ms --gpu-type H20: SimAI's 16-GPU H20 file's parameters at 128 GPUs
"""
import argparse


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpus", type=int, required=True)
    p.add_argument("--gps", type=int, default=8, help="GPUs per server (and rails)")
    p.add_argument("--nvswitch-per-server", type=int, default=1)
    p.add_argument("--nvlink", default="2400Gbps")
    p.add_argument("--nv-latency", default="0.000025ms")
    p.add_argument("--nic", default="400Gbps", help="GPU (NIC) to ASW rate")
    p.add_argument("--latency", default="0.0005ms", help="NIC and ASW-PSW latency")
    p.add_argument("--nics-per-asw", type=int, default=64)
    p.add_argument("--psw", type=int, default=64, help="PSW (spine) switches")
    p.add_argument("--ap", default="400Gbps", help="ASW to PSW rate")
    p.add_argument("--gpu-type", default="H100")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args()

    servers = -(-a.gpus // a.gps)
    segments = -(-a.gpus // (a.gps * a.nics_per_asw))
    nvs = servers * a.nvswitch_per_server
    asw = segments * a.gps
    first_nvs = a.gpus
    first_asw = first_nvs + nvs
    first_psw = first_asw + asw
    nodes = first_psw + a.psw
    lines = []
    for gpu in range(a.gpus):
        server = gpu // a.gps
        for k in range(a.nvswitch_per_server):
            nv = first_nvs + server * a.nvswitch_per_server + k
            lines.append(f"{gpu} {nv} {a.nvlink} {a.nv_latency} 0")
        segment = gpu // (a.gps * a.nics_per_asw)
        leaf = first_asw + segment * a.gps + gpu % a.gps
        lines.append(f"{gpu} {leaf} {a.nic} {a.latency} 0")
    for leaf in range(first_asw, first_psw):
        for spine in range(first_psw, nodes):
            lines.append(f"{leaf} {spine} {a.ap} {a.latency} 0")
    with open(a.output, "w") as f:
        f.write(f"{nodes} {a.gps} {nvs} {asw + a.psw} {len(lines)} {a.gpu_type}\n")
        f.write(" ".join(str(i) for i in range(a.gpus, nodes)) + " \n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
