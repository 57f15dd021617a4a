<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="ja_JP">
<context>
    <name>ExportImage</name>
    <message>
        <source>%1: unknown image format (use .png, .svg or .pdf)</source>
        <translation>%1: 未知の画像形式です (.png、.svg、.pdf を使ってください)</translation>
    </message>
    <message>
        <source>%1: the file exists; not overwritten</source>
        <translation>%1: ファイルが既に存在します。上書きしません</translation>
    </message>
    <message>
        <source>%1: nothing to export</source>
        <translation>%1: 書き出す内容がありません</translation>
    </message>
    <message>
        <source>%1: rendering failed</source>
        <translation>%1: 描画に失敗しました</translation>
    </message>
    <message>
        <source>Measured run time %1</source>
        <translation>実測の実行時間 %1</translation>
    </message>
    <message>
        <source>No hypothesis: the measured run replayed</source>
        <translation>仮説なし: 実測の実行を再生</translation>
    </message>
    <message>
        <source>Hypotheses: %1</source>
        <translation>仮説: %1</translation>
    </message>
    <message numerus="yes">
        <source>Loaded with %n warning(s): the trace may be incomplete</source>
        <translation>
            <numerusform>%n 件の警告付きで読み込みました: トレースが不完全な可能性があります</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s) and no MPI rank (a program without MPI): shown as measured, nothing to predict</source>
        <translation>
            <numerusform>%n 個のスレッドがあり MPI ランクはありません (MPI を使わないプログラム): 実測のまま表示し、予測するものはありません</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n thread(s) under their ranks, shown as measured (the prediction replays the MPI ranks)</source>
        <translation>
            <numerusform>%n 個のスレッドをランクの下に実測のまま表示 (予測は MPI ランクを再生します)</numerusform>
        </translation>
    </message>
    <message>
        <source>Network model: %1</source>
        <translation>ネットワークモデル: %1</translation>
    </message>
</context>
<context>
    <name>HeadlessExport</name>
    <message numerus="yes">
        <source>%n thread(s) and no MPI rank (a program without MPI): nothing to predict; only --view measured is drawn</source>
        <translation>
            <numerusform>%n 個のスレッドがあり MPI ランクはありません (MPI を使わないプログラム): 予測するものがありません。--view measured だけを描けます</numerusform>
        </translation>
    </message>
    <message>
        <source>the range to draw is empty: %1 is not before %2</source>
        <translation>描く範囲が空です: %1 が %2 より前ではありません</translation>
    </message>
    <message>
        <source>the trace has %1 ranks</source>
        <translation>トレースのランク数は %1 です</translation>
    </message>
    <message>
        <source>rank %1 has %2 MPI calls</source>
        <translation>ランク %1 の MPI 呼び出しは %2 個です</translation>
    </message>
    <message>
        <source>not a time (2.5s, 300ms, 12us, 800ns; a number is ns) or an event RANK:INDEX</source>
        <translation>時刻 (2.5s、300ms、12us、800ns。数だけなら ns) でもイベント RANK:INDEX でもありません</translation>
    </message>
    <message>
        <source>after the end of the trace (%1 ns)</source>
        <translation>トレースの終わり (%1 ns) より後です</translation>
    </message>
    <message>
        <source>perwiz: --view must be measured, predicted, overlay or lanes, not &apos;%1&apos;</source>
        <translation>perwiz: --view は measured、predicted、overlay、lanes のいずれかです (&apos;%1&apos; ではなく)</translation>
    </message>
    <message>
        <source>perwiz: %1: unknown image format (use .png, .svg or .pdf)</source>
        <translation>perwiz: %1: 未知の画像形式です (.png、.svg、.pdf を使ってください)</translation>
    </message>
    <message>
        <source>perwiz: %1: the file exists; not overwritten (--force replaces it)</source>
        <translation>perwiz: %1: ファイルが存在するため上書きしません (--force で置き換えます)</translation>
    </message>
</context>
<context>
    <name>Hypothesis</name>
    <message>
        <source>zero-wait %1</source>
        <translation>待ちゼロ %1</translation>
    </message>
    <message>
        <source>zero-event %1</source>
        <translation>イベントゼロ %1</translation>
    </message>
    <message>
        <source>balance-compute step %1</source>
        <translation>計算均衡化 ステップ %1</translation>
    </message>
    <message>
        <source>balance-volume step %1</source>
        <translation>通信量均衡化 ステップ %1</translation>
    </message>
    <message>
        <source>compensate overhead recorded in the trace</source>
        <translation>トレースに記録されたオーバーヘッドを補正</translation>
    </message>
    <message>
        <source>compensate %1 ns/event</source>
        <translation>補正 %1 ns/イベント</translation>
    </message>
    <message>
        <source>%1 on rank %2 (call %3, at %4)</source>
        <translation>ランク %2 の %1 (呼び出し %3、%4)</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>ステップ %1</translation>
    </message>
    <message>
        <source>step %1 (%2, at %3)</source>
        <translation>ステップ %1 (%2、%3)</translation>
    </message>
    <message>
        <source>zero the wait of %1</source>
        <translation>%1 の待ちをゼロに</translation>
    </message>
    <message>
        <source>remove the computation before %1</source>
        <translation>%1 の前の計算を除く</translation>
    </message>
    <message>
        <source>remove the computation at the end of rank %1</source>
        <translation>ランク %1 の最後の計算を除く</translation>
    </message>
    <message>
        <source>remove %1</source>
        <translation>%1 を除く</translation>
    </message>
    <message>
        <source>balance the computation of %1</source>
        <translation>%1 の計算を均等化</translation>
    </message>
    <message>
        <source>balance the message volume of %1</source>
        <translation>%1 のメッセージ量を均等化</translation>
    </message>
</context>
<context>
    <name>HypothesisCommands</name>
    <message>
        <source>Add %1</source>
        <translation>%1 を追加</translation>
    </message>
    <message>
        <source>Remove %1</source>
        <translation>%1 を削除</translation>
    </message>
    <message>
        <source>Enable %1</source>
        <translation>%1 を有効化</translation>
    </message>
    <message>
        <source>Disable %1</source>
        <translation>%1 を無効化</translation>
    </message>
    <message>
        <source>Network %1</source>
        <translation>ネットワーク %1</translation>
    </message>
</context>
<context>
    <name>Network</name>
    <message>
        <source>%1, model local costs</source>
        <translation>%1、モデルの局所コスト</translation>
    </message>
    <message>
        <source>%1, measured local costs</source>
        <translation>%1、実測の局所コスト</translation>
    </message>
</context>
<context>
    <name>OverheadDock</name>
    <message>
        <source>Poisson</source>
        <translation>ポアソン</translation>
    </message>
    <message>
        <source>exponential</source>
        <translation>指数</translation>
    </message>
</context>
<context>
    <name>PredictionSummary</name>
    <message>
        <source>measured %1 → predicted %2 (%3)</source>
        <translation>実測 %1 → 予測 %2 (%3)</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>変化なし</translation>
    </message>
</context>
<context>
    <name>QDialog</name>
    <message>
        <source>Export Image</source>
        <translation>画像を書き出す</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>Overlay (predicted over measured)</source>
        <translation>重ね表示（実測の上に予測）</translation>
    </message>
    <message>
        <source>Lanes (measured and predicted per rank)</source>
        <translation>レーン（ランクごとに実測と予測）</translation>
    </message>
    <message>
        <source>View:</source>
        <translation>表示:</translation>
    </message>
    <message>
        <source>Whole trace</source>
        <translation>トレース全体</translation>
    </message>
    <message>
        <source>Current view</source>
        <translation>現在の表示範囲</translation>
    </message>
    <message>
        <source>Range:</source>
        <translation>範囲:</translation>
    </message>
    <message>
        <source> px</source>
        <translation> px</translation>
    </message>
    <message>
        <source>Width:</source>
        <translation>幅:</translation>
    </message>
    <message>
        <source>Lane height:</source>
        <translation>レーンの高さ:</translation>
    </message>
    <message>
        <source>Title, hypotheses and run times above the timeline</source>
        <translation>タイムラインの上にタイトル、仮説、実行時間を表示</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; on %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;（%2）</translation>
    </message>
    <message>
        <source>&lt;br&gt;at %1</source>
        <translation>&lt;br&gt;時刻 %1</translation>
    </message>
    <message>
        <source>&lt;br&gt;measured: %1 – %2, duration %3</source>
        <translation>&lt;br&gt;実測: %1 – %2, 所要時間 %3</translation>
    </message>
    <message>
        <source>&lt;br&gt;predicted: %1 – %2, duration %3</source>
        <translation>&lt;br&gt;予測: %1 – %2, 所要時間 %3</translation>
    </message>
    <message>
        <source>&lt;br&gt;wait:</source>
        <translation>&lt;br&gt;待ち時間:</translation>
    </message>
    <message>
        <source> %1 measured</source>
        <translation> 実測 %1</translation>
    </message>
    <message>
        <source>%1 %2 predicted</source>
        <translation>%1 予測 %2</translation>
    </message>
    <message>
        <source>&lt;br&gt;%1 %2 B %3 rank %4, tag %5%6</source>
        <translation>&lt;br&gt;%1 %2 B %3 ランク %4, タグ %5%6</translation>
    </message>
    <message>
        <source>send</source>
        <translation>送信</translation>
    </message>
    <message>
        <source>receive</source>
        <translation>受信</translation>
    </message>
    <message>
        <source>to</source>
        <translation>宛先</translation>
    </message>
    <message>
        <source>from</source>
        <translation>送信元</translation>
    </message>
    <message>
        <source> (unmatched)</source>
        <translation> （対応なし）</translation>
    </message>
    <message>
        <source>&lt;br&gt;collective #%1 on %2 ranks</source>
        <translation>&lt;br&gt;集団通信 #%1（%2 ランク）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Parallel step %1&lt;/b&gt; on %2</source>
        <translation>&lt;b&gt;並列ステップ %1&lt;/b&gt;（%2）</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;B: balance computation, V: balance volume&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;B: 計算量を均等化, V: 通信量を均等化&lt;/span&gt;</translation>
    </message>
    <message>
        <source>+%1 more</source>
        <translation>ほか %1 件</translation>
    </message>
    <message>
        <source>No trace</source>
        <translation>トレースなし</translation>
    </message>
    <message>
        <source>even step</source>
        <translation>偶数ステップ</translation>
    </message>
    <message>
        <source>lanes: m measured, p predicted</source>
        <translation>レーン: m 実測, p 予測</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>message</source>
        <translation>メッセージ</translation>
    </message>
    <message>
        <source>odd step</source>
        <translation>奇数ステップ</translation>
    </message>
    <message>
        <source>predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>The prediction is not ready yet</source>
        <translation>予測はまだ準備できていません</translation>
    </message>
    <message>
        <source>Domino paths</source>
        <translation>ドミノパス</translation>
    </message>
    <message>
        <source>Parallel steps</source>
        <translation>並列ステップ</translation>
    </message>
    <message>
        <source>Lower bounds</source>
        <translation>下限</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完了</translation>
    </message>
    <message>
        <source>(no call)</source>
        <translation>（呼び出しなし）</translation>
    </message>
    <message>
        <source>&lt;b&gt;Message&lt;/b&gt; %1 → %2</source>
        <translation>&lt;b&gt;メッセージ&lt;/b&gt; %1 → %2</translation>
    </message>
    <message>
        <source>(unmatched)</source>
        <translation>（対応なし）</translation>
    </message>
    <message>
        <source>&lt;br&gt;%1 B, tag %2</source>
        <translation>&lt;br&gt;%1 B、タグ %2</translation>
    </message>
    <message>
        <source>&lt;br&gt;sent by %1 at %2</source>
        <translation>&lt;br&gt;送信: %1（%2）</translation>
    </message>
    <message>
        <source>&lt;br&gt;received by %1 at %2</source>
        <translation>&lt;br&gt;受信: %1（%2）</translation>
    </message>
    <message>
        <source>&lt;br&gt;receiver&apos;s wait:</source>
        <translation>&lt;br&gt;受信側の待ち:</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;Z: zero the receiver&apos;s wait&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;Z: 受信側の待ちをゼロにする&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>Overlay: measured faded, predicted outlined</source>
        <translation>重ね表示: 実測は淡色、予測は枠線</translation>
    </message>
    <message>
        <source>Lanes: m measured, p predicted</source>
        <translation>レーン: m 実測、p 予測</translation>
    </message>
    <message>
        <source>tracer&apos;s cost per record</source>
        <translation>トレーサの記録あたりのコスト</translation>
    </message>
    <message>
        <source>%1 (a thread of %2)</source>
        <translation>%1 (%2 のスレッド)</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt;</source>
        <translation>&lt;b&gt;%1&lt;/b&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;Threads are shown as measured: the prediction replays the MPI ranks.&lt;/span&gt;</source>
        <translation>&lt;br&gt;&lt;span style=&apos;color:gray&apos;&gt;スレッドは実測のまま表示します: 予測は MPI ランクを再生します。&lt;/span&gt;</translation>
    </message>
    <message>
        <source>Provisional drawing: the exact one follows</source>
        <translation>暫定の描画: 正確な描画がこの後に続きます</translation>
    </message>
</context>
<context>
    <name>RegionPicker</name>
    <message>
        <source>The trace has no state or region named &apos;%1&apos;</source>
        <translation>このトレースには &apos;%1&apos; という名前の状態・領域がありません</translation>
    </message>
</context>
<context>
    <name>SessionFile</name>
    <message>
        <source>%1: cannot read: %2</source>
        <translation>%1: 読み込めません: %2</translation>
    </message>
    <message>
        <source>%1: not a JSON object: %2</source>
        <translation>%1: JSON オブジェクトではありません: %2</translation>
    </message>
    <message>
        <source>%1: not a PerWiz session (&quot;perwiz_session&quot;: 1 missing)</source>
        <translation>%1: PerWiz のセッションではありません (&quot;perwiz_session&quot;: 1 がありません)</translation>
    </message>
    <message>
        <source>%1: the session names no trace</source>
        <translation>%1: セッションにトレースが指定されていません</translation>
    </message>
    <message>
        <source>%1: &quot;scenario&quot; is not an object</source>
        <translation>%1: &quot;scenario&quot; がオブジェクトではありません</translation>
    </message>
    <message>
        <source>%1: view mode &quot;%2&quot; is not one of %3</source>
        <translation>%1: 表示モード &quot;%2&quot; は %3 のいずれでもありません</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>PerWiz: what-if performance prediction for MPI traces.</source>
        <translation>PerWiz: MPI トレースの what-if 性能予測ツール</translation>
    </message>
    <message>
        <source>User interface language (en, ja).</source>
        <translation>表示言語 (en, ja)</translation>
    </message>
    <message>
        <source>Render TRACE to OUT (.png, .svg, .pdf) without a window and exit.</source>
        <translation>ウィンドウを開かずに TRACE を OUT (.png, .svg, .pdf) に描画して終了します</translation>
    </message>
    <message>
        <source>Scenario file for --export-image.</source>
        <translation>--export-image で使うシナリオファイル</translation>
    </message>
    <message>
        <source>Image width for --export-image (pixels).</source>
        <translation>--export-image の画像の幅 (ピクセル)</translation>
    </message>
    <message>
        <source>ALOG or OTF2 trace, or a .perwiz session (default: the sample trace).</source>
        <translation>ALOG または OTF2 のトレース、あるいは .perwiz セッション (省略時: サンプルトレース)</translation>
    </message>
    <message>
        <source>perwiz: --export-image OUT needs exactly one TRACE</source>
        <translation>perwiz: --export-image OUT にはトレース (TRACE) をちょうど 1 つ指定してください</translation>
    </message>
    <message>
        <source>perwiz: --width must be between 200 and 20000</source>
        <translation>perwiz: --width は 200 から 20000 の間で指定してください</translation>
    </message>
    <message>
        <source>Height of a lane for --export-image (pixels, at least 14; a Lanes row has two).</source>
        <translation>--export-image のレーンの高さ（ピクセル、14 以上。レーン表示では 1 行に 2 レーン）。</translation>
    </message>
    <message>
        <source>--export-image without the title, hypotheses and run times above the timeline.</source>
        <translation>--export-image でタイムラインの上のタイトル、仮説、実行時間を省きます。</translation>
    </message>
    <message>
        <source>--export-image replaces OUT if it exists.</source>
        <translation>--export-image で OUT が存在すれば置き換えます。</translation>
    </message>
    <message>
        <source>perwiz: --lane-height must be between %1 and 200</source>
        <translation>perwiz: --lane-height は %1 から 200 の間で指定してください</translation>
    </message>
    <message>
        <source>View for --export-image: measured, predicted, overlay or lanes (default: lanes with hypotheses, else measured).</source>
        <translation>--export-image の表示: measured、predicted、overlay、lanes (既定: 仮説があれば lanes、なければ measured)。</translation>
    </message>
    <message>
        <source>--export-image: the state or region whose executions are the parallel steps.</source>
        <translation>--export-image: 実行を並列ステップとする状態・領域。</translation>
    </message>
    <message>
        <source>--export-image from this time (2.5s, 300ms, 12us, 800ns; a number is ns) or the enter of event RANK:INDEX.</source>
        <translation>--export-image をこの時刻 (2.5s、300ms、12us、800ns。数だけなら ns) またはイベント RANK:INDEX の開始から描きます。</translation>
    </message>
    <message>
        <source>--export-image up to this time or the leave of event RANK:INDEX.</source>
        <translation>--export-image をこの時刻またはイベント RANK:INDEX の終了まで描きます。</translation>
    </message>
    <message>
        <source>perwiz: --%1 needs --export-image</source>
        <translation>perwiz: --%1 には --export-image が必要です</translation>
    </message>
    <message>
        <source>a second run of the program (e.g. after the fix), compared with TRACE (File ▸ Compare With…).</source>
        <translation>プログラムの 2 回目の実行 (修正後など)。TRACE と比較します (ファイル ▸ 比較…)。</translation>
    </message>
    <message>
        <source>perwiz: at most two traces (TRACE and a SECOND run to compare)</source>
        <translation>perwiz: トレースは 2 つまでです (TRACE と比較する 2 回目の実行)</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::AdvisorDock</name>
    <message>
        <source>Advisor</source>
        <translation>アドバイザ</translation>
    </message>
    <message>
        <source>Run Advisor</source>
        <translation>アドバイザを実行</translation>
    </message>
    <message>
        <source>Find what to fix first, starting from the current scenario</source>
        <translation>現在のシナリオから、最初に直すべき箇所を探します</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Apply</source>
        <translation>適用</translation>
    </message>
    <message>
        <source>Add the selected rows as hypotheses</source>
        <translation>選択した行を仮説として追加します</translation>
    </message>
    <message>
        <source>Not run yet.</source>
        <translation>まだ実行されていません。</translation>
    </message>
    <message>
        <source>Path / event</source>
        <translation>パス / イベント</translation>
    </message>
    <message>
        <source>Wait</source>
        <translation>待ち時間</translation>
    </message>
    <message>
        <source>Predicted T</source>
        <translation>予測 T</translation>
    </message>
    <message>
        <source>Gain</source>
        <translation>短縮</translation>
    </message>
    <message>
        <source>Domino Paths</source>
        <translation>ドミノパス</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>イベント</translation>
    </message>
    <message>
        <source>Function</source>
        <translation>関数</translation>
    </message>
    <message>
        <source>Candidates</source>
        <translation>候補</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク数</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>σ</source>
        <translation>σ</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Region</source>
        <translation>領域</translation>
    </message>
    <message>
        <source>Assumptions</source>
        <translation>仮定</translation>
    </message>
    <message>
        <source>Bounds</source>
        <translation>下限</translation>
    </message>
    <message>
        <source>Run the advisor to find the messages whose wait removal shortens the run most.</source>
        <translation>アドバイザを実行すると、待ち時間の除去で実行時間が最も短くなるメッセージがわかります。</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>実行中…</translation>
    </message>
    <message>
        <source>Running: %1…</source>
        <translation>実行中: %1…</translation>
    </message>
    <message>
        <source>The scenario changed since this advice was computed: run again to update it.</source>
        <translation>この助言の計算後にシナリオが変わりました。更新するには再実行してください。</translation>
    </message>
    <message>
        <source>The advisor failed: %1</source>
        <translation>アドバイザが失敗しました: %1</translation>
    </message>
    <message>
        <source>Cancelled; the tables show what was finished.</source>
        <translation>キャンセルしました。表には完了した分が表示されています。</translation>
    </message>
    <message numerus="yes">
        <source>Base %1 (measured %2); %n prediction(s) run.</source>
        <translation>
            <numerusform>基準 %1 (実測 %2)、予測 %n 回を実行。</numerusform>
        </translation>
    </message>
    <message>
        <source>No domino paths (cancelled or failed).</source>
        <translation>ドミノパスはありません (キャンセルまたは失敗)。</translation>
    </message>
    <message>
        <source>Searching…</source>
        <translation>探索中…</translation>
    </message>
    <message>
        <source>No wait on the critical path can be removed with a gain: the run is bound by computation and communication costs.</source>
        <translation>クリティカルパス上に、除去して短縮になる待ち時間はありません。実行時間は計算と通信のコストで決まっています。</translation>
    </message>
    <message>
        <source>Best: %1 → %2 (%3). Events are listed cause first.</source>
        <translation>最良: %1 → %2 (%3)。イベントは原因から順に並んでいます。</translation>
    </message>
    <message>
        <source> The search stopped at its path limit.</source>
        <translation> 探索はパス数の上限で停止しました。</translation>
    </message>
    <message>
        <source>Longest wait: %1, %2 → predicted %3 (%4).</source>
        <translation>最長の待ち: %1、%2 → 予測 %3 (%4)。</translation>
    </message>
    <message>
        <source>No call waits in this scenario.</source>
        <translation>このシナリオでは待っている呼び出しはありません。</translation>
    </message>
    <message>
        <source>The trace has no parallel steps (no PRGN markers); choose a region with Prediction ▸ Parallel Region.</source>
        <translation>このトレースには並列ステップがありません (PRGN マーカーなし)。予測 ▸ 並列領域 で領域を選んでください。</translation>
    </message>
    <message>
        <source>Waiting for the domino search…</source>
        <translation>ドミノパス探索を待っています…</translation>
    </message>
    <message numerus="yes">
        <source>All %n step(s) balanced → %1 (%2).</source>
        <translation>
            <numerusform>全 %n ステップを均衡化 → %1 (%2)。</numerusform>
        </translation>
    </message>
    <message>
        <source>Estimates from the per-rank breakdown: Q1 zero waiting, Q2 balanced workload, Q3 balanced message amount (* above the measured T: see the cell)</source>
        <translation>ランクごとの内訳による見積もり: Q1 待ちゼロ、Q2 負荷均衡、Q3 メッセージ量均衡（* は実測 T を上回る: セルを参照）</translation>
    </message>
    <message numerus="yes">
        <source>%1 → %2 (%n event(s))</source>
        <translation>
            <numerusform>%1 → %2（%n イベント）</numerusform>
        </translation>
    </message>
    <message>
        <source>Zero the wait of %1: the delay it caused runs along this path (started from rank %2).</source>
        <translation>%1 の待ちをゼロにします: それが生んだ遅れはこの経路をたどります（ランク %2 から探索）。</translation>
    </message>
    <message>
        <source>Above the measured T: with the workload balanced but the waits kept, a rank that did not wait gets more work while every rank keeps its waiting time. The per-rank estimate adds them; combine with Q1 (zero waiting) for a bound.</source>
        <translation>実測 T を上回ります: 待ちを残したまま負荷を均衡化すると、待っていなかったランクの仕事が増え、各ランクは待ち時間を保ちます。ランクごとの見積もりはこれらを足し合わせます。下限には Q1（待ちゼロ）と組み合わせてください。</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::AnalysisSession</name>
    <message>
        <source>No trace loaded</source>
        <translation>トレースが読み込まれていません</translation>
    </message>
    <message>
        <source>%1 is already applied</source>
        <translation>%1 は既に適用されています</translation>
    </message>
    <message>
        <source>Cannot open session</source>
        <translation>セッションを開けません</translation>
    </message>
    <message numerus="yes">
        <source>Apply %n hypothesis(es)</source>
        <translation>
            <numerusform>仮説 %n 件を適用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Parallel region &apos;%1&apos;: %n step(s)</source>
        <translation>
            <numerusform>並列領域 &apos;%1&apos;: %n ステップ</numerusform>
        </translation>
    </message>
    <message>
        <source>Compensate</source>
        <translation>補正</translation>
    </message>
    <message>
        <source>Building the replay model</source>
        <translation>リプレイモデルを構築中</translation>
    </message>
    <message>
        <source>Re-simulating</source>
        <translation>再シミュレーション中</translation>
    </message>
    <message>
        <source>Preparing the predicted timeline</source>
        <translation>予測タイムラインを準備中</translation>
    </message>
    <message>
        <source>There is no prediction to write yet.</source>
        <translation>書き出す予測はまだありません。</translation>
    </message>
    <message>
        <source>Wait for the prediction of the current scenario, then export it.</source>
        <translation>現在のシナリオの予測を待ってから書き出してください。</translation>
    </message>
    <message>
        <source>A predicted trace is being written; wait for it to finish.</source>
        <translation>予測トレースを書き出し中です。終わるまで待ってください。</translation>
    </message>
    <message>
        <source>New trace: the network model is back to the default, %1</source>
        <translation>新しいトレース: ネットワークモデルを既定に戻しました (%1)</translation>
    </message>
    <message>
        <source>Preparing for changes</source>
        <translation>変更の準備中</translation>
    </message>
    <message>
        <source>Open a trace first: the second run is compared with it</source>
        <translation>先にトレースを開いてください: 2 回目の実行はそれと比較されます</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::ChartsDock</name>
    <message>
        <source>Charts</source>
        <translation>グラフ</translation>
    </message>
    <message>
        <source>Scenario History</source>
        <translation>シナリオ履歴</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Rank Ends</source>
        <translation>ランクの終了時刻</translation>
    </message>
    <message>
        <source>No prediction yet</source>
        <translation>予測はまだありません</translation>
    </message>
    <message>
        <source>No parallel steps</source>
        <translation>並列ステップがありません</translation>
    </message>
    <message>
        <source>predicted T</source>
        <translation>予測 T</translation>
    </message>
    <message>
        <source>current state</source>
        <translation>現在の状態</translation>
    </message>
    <message>
        <source>T (%1)</source>
        <translation>T (%1)</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>実測</translation>
    </message>
    <message>
        <source>σ of computation</source>
        <translation>計算時間の σ</translation>
    </message>
    <message>
        <source>predicted gain if balanced</source>
        <translation>均等化したときの予測短縮</translation>
    </message>
    <message>
        <source>parallel step</source>
        <translation>並列ステップ</translation>
    </message>
    <message>
        <source>time (%1)</source>
        <translation>時間 (%1)</translation>
    </message>
    <message>
        <source>measured end</source>
        <translation>実測終了時刻</translation>
    </message>
    <message>
        <source>predicted end</source>
        <translation>予測終了時刻</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>end (%1)</source>
        <translation>終了時刻 (%1)</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::ComparisonDock</name>
    <message>
        <source>Comparison</source>
        <translation>比較</translation>
    </message>
    <message>
        <source>Compare With…</source>
        <translation>比較…</translation>
    </message>
    <message>
        <source>Open a second run of the program (e.g. after the fix) beside this one</source>
        <translation>プログラムの 2 回目の実行 (修正後など) をこの実行の横に開きます</translation>
    </message>
    <message>
        <source>End Comparison</source>
        <translation>比較を終了</translation>
    </message>
    <message>
        <source>No second run yet: File ▸ Compare With… opens one.</source>
        <translation>2 回目の実行はまだありません: ファイル ▸ 比較… で開きます。</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Functions</source>
        <translation>関数</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>イベント</translation>
    </message>
    <message>
        <source>Comparing with %1…</source>
        <translation>%1 と比較中…</translation>
    </message>
    <message>
        <source>No comparison: %1</source>
        <translation>比較できません: %1</translation>
    </message>
    <message>
        <source>B: %1 — %2 of %3 events paired, %4 only in A, %5 only in B.</source>
        <translation>B: %1 — %3 イベント中 %2 が対応、A のみ %4、B のみ %5。</translation>
    </message>
    <message>
        <source>T: A %1, B %2 (%3).</source>
        <translation>T: A %1、B %2 (%3)。</translation>
    </message>
    <message numerus="yes">
        <source>Predicted (A′, %n hypothesis(es)): %1; B re-measured %2: the prediction is off by %3 (%4).</source>
        <translation>
            <numerusform>予測 (A′、仮説 %n 個): %1。B の再測定 %2: 予測の誤差 %3 (%4)。</numerusform>
        </translation>
    </message>
    <message>
        <source>No hypotheses: add some to set their prediction against B.</source>
        <translation>仮説がありません: 仮説を追加すると、その予測を B と比べます。</translation>
    </message>
    <message>
        <source>%1 rank(s) of A and %2 of B have no partner.</source>
        <translation>A の %1 ランクと B の %2 ランクに対応がありません。</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>End A</source>
        <translation>A の終了</translation>
    </message>
    <message>
        <source>End B</source>
        <translation>B の終了</translation>
    </message>
    <message>
        <source>B − A</source>
        <translation>B − A</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>予測</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>誤差</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>Function</source>
        <translation>関数</translation>
    </message>
    <message>
        <source>Calls A</source>
        <translation>A の呼び出し数</translation>
    </message>
    <message>
        <source>Calls B</source>
        <translation>B の呼び出し数</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>イベント</translation>
    </message>
    <message>
        <source>changed: </source>
        <translation>変化: </translation>
    </message>
    <message>
        <source>missed: </source>
        <translation>予測外れ: </translation>
    </message>
    <message>
        <source>Line Up Event</source>
        <translation>イベントを揃える</translation>
    </message>
    <message>
        <source>Shift B&apos;s timeline so that the selected event and its partner in B line up</source>
        <translation>選択したイベントと B の対応イベントが揃うよう B のタイムラインをずらします</translation>
    </message>
    <message>
        <source>Start Together</source>
        <translation>開始を揃える</translation>
    </message>
    <message>
        <source>Both runs from their start (no shift)</source>
        <translation>両方の実行を開始時点から表示 (ずらしなし)</translation>
    </message>
    <message>
        <source> µs</source>
        <translation> µs</translation>
    </message>
    <message>
        <source>mark changes above </source>
        <translation>変化の印: </translation>
    </message>
    <message>
        <source>mark the largest changes</source>
        <translation>最大の変化に印</translation>
    </message>
    <message>
        <source>Mark on both timelines every event whose duration changed by more than this</source>
        <translation>所要時間がこの値より大きく変化したイベントすべてに両方のタイムラインで印を付けます</translation>
    </message>
    <message>
        <source>%1 events changed by more than %2 (marked%3).</source>
        <translation>%1 イベントが %2 より大きく変化 (印%3)。</translation>
    </message>
    <message>
        <source>: the first %1</source>
        <translation>: 最初の %1</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::HypothesisDock</name>
    <message>
        <source>Hypotheses</source>
        <translation>仮説</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>削除</translation>
    </message>
    <message>
        <source>Remove the selected hypothesis from the scenario</source>
        <translation>選択した仮説をシナリオから削除します</translation>
    </message>
    <message>
        <source>Not applied: %1</source>
        <translation>適用されていません: %1</translation>
    </message>
    <message>
        <source>%1 (pending)</source>
        <translation>%1 (保留中)</translation>
    </message>
    <message>
        <source>Waiting for its prediction</source>
        <translation>予測を待っています</translation>
    </message>
    <message>
        <source>No hypotheses. Click a message arrow or an event and press Z (zero wait), an event and E (zero event), or a parallel step and B (balance computation) or V (balance volume).</source>
        <translation>仮説はありません。メッセージの矢印かイベントをクリックして Z（待ちをゼロ）、イベントで E（イベントをゼロ）、並列ステップで B（計算の均衡化）または V（通信量の均衡化）を押してください。</translation>
    </message>
    <message>
        <source>%1: applied to the prediction</source>
        <translation>%1: 予測に適用済み</translation>
    </message>
    <message>
        <source>%1: disabled, kept but not applied</source>
        <translation>%1: 無効 (残すが適用しない)</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::InspectorDock</name>
    <message>
        <source>Inspector</source>
        <translation>詳細</translation>
    </message>
    <message>
        <source>Zero wait (Z)</source>
        <translation>待ち時間をゼロに (Z)</translation>
    </message>
    <message>
        <source>Assume the partner is in time: this call&apos;s waiting time becomes zero</source>
        <translation>相手が間に合ったと仮定し、この呼び出しの待ち時間をゼロにします</translation>
    </message>
    <message>
        <source>Zero event (E)</source>
        <translation>イベントをゼロに (E)</translation>
    </message>
    <message>
        <source>This call takes no time at all</source>
        <translation>この呼び出しの所要時間をゼロにします</translation>
    </message>
    <message>
        <source>Zero computation before</source>
        <translation>直前の計算をゼロに</translation>
    </message>
    <message>
        <source>The computation before this call takes no time</source>
        <translation>この呼び出しの直前の計算時間をゼロにします</translation>
    </message>
    <message>
        <source>Balance computation (B)</source>
        <translation>計算量を均等化 (B)</translation>
    </message>
    <message>
        <source>Every rank&apos;s computation in this parallel step becomes the step mean</source>
        <translation>この並列ステップにおける各ランクの計算時間をステップ内の平均にします</translation>
    </message>
    <message>
        <source>Balance volume (V)</source>
        <translation>通信量を均等化 (V)</translation>
    </message>
    <message>
        <source>Every message sent in this parallel step gets the step&apos;s mean size</source>
        <translation>この並列ステップで送信される各メッセージの大きさをステップ内の平均にします</translation>
    </message>
    <message>
        <source>MPI call</source>
        <translation>MPI 呼び出し</translation>
    </message>
    <message>
        <source>user state</source>
        <translation>ユーザ状態</translation>
    </message>
    <message>
        <source>point event</source>
        <translation>点イベント</translation>
    </message>
    <message>
        <source>Kind:</source>
        <translation>種類:</translation>
    </message>
    <message>
        <source>Rank:</source>
        <translation>ランク:</translation>
    </message>
    <message>
        <source>Event:</source>
        <translation>イベント:</translation>
    </message>
    <message>
        <source>Measured enter:</source>
        <translation>実測開始時刻:</translation>
    </message>
    <message>
        <source>Measured leave:</source>
        <translation>実測終了時刻:</translation>
    </message>
    <message>
        <source>Duration:</source>
        <translation>所要時間:</translation>
    </message>
    <message>
        <source>Measured wait:</source>
        <translation>実測待ち時間:</translation>
    </message>
    <message>
        <source>Local cost:</source>
        <translation>ローカルコスト:</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>不明</translation>
    </message>
    <message>
        <source>to rank %1: %2 B, tag %3</source>
        <translation>ランク %1 へ: %2 B、タグ %3</translation>
    </message>
    <message>
        <source>from rank %1: %2 B, tag %3</source>
        <translation>ランク %1 から: %2 B、タグ %3</translation>
    </message>
    <message>
        <source>collective %1 on %2 ranks: %3 B sent, %4 B received</source>
        <translation>集団通信 %1 (%2 ランク): 送信 %3 B、受信 %4 B</translation>
    </message>
    <message>
        <source>Bytes:</source>
        <translation>バイト数:</translation>
    </message>
    <message>
        <source>Partners:</source>
        <translation>通信相手:</translation>
    </message>
    <message>
        <source>Parallel step:</source>
        <translation>並列ステップ:</translation>
    </message>
    <message>
        <source>Predicted enter:</source>
        <translation>予測開始時刻:</translation>
    </message>
    <message>
        <source>Predicted leave:</source>
        <translation>予測終了時刻:</translation>
    </message>
    <message>
        <source>Predicted wait:</source>
        <translation>予測待ち時間:</translation>
    </message>
    <message>
        <source>Parallel step %1</source>
        <translation>並列ステップ %1</translation>
    </message>
    <message>
        <source>Ranks:</source>
        <translation>ランク数:</translation>
    </message>
    <message>
        <source>Measured begin:</source>
        <translation>実測開始:</translation>
    </message>
    <message>
        <source>Measured end:</source>
        <translation>実測終了:</translation>
    </message>
    <message>
        <source>Span per rank:</source>
        <translation>ランクごとの区間:</translation>
    </message>
    <message>
        <source>%1 … %2</source>
        <translation>%1 〜 %2</translation>
    </message>
    <message>
        <source>Predicted begin:</source>
        <translation>予測開始:</translation>
    </message>
    <message>
        <source>Predicted end:</source>
        <translation>予測終了:</translation>
    </message>
    <message>
        <source>Nothing selected</source>
        <translation>何も選択されていません</translation>
    </message>
    <message>
        <source>No trace loaded</source>
        <translation>トレースが読み込まれていません</translation>
    </message>
    <message>
        <source>Overhead:</source>
        <translation>オーバーヘッド:</translation>
    </message>
    <message>
        <source>%1 (usual maximum t_max %2)</source>
        <translation>%1 (通常の最大値 t_max %2)</translation>
    </message>
    <message>
        <source>Click an event, a message arrow or a parallel step in the timeline.</source>
        <translation>タイムラインのイベント、メッセージの矢印、または並列ステップをクリックしてください。</translation>
    </message>
    <message>
        <source>Message %1 → %2</source>
        <translation>メッセージ %1 → %2</translation>
    </message>
    <message>
        <source>Message from %1 (unmatched)</source>
        <translation>%1 からのメッセージ（対応なし）</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（なし）</translation>
    </message>
    <message>
        <source>Sender call:</source>
        <translation>送信側の呼び出し:</translation>
    </message>
    <message>
        <source>%1 on rank %2, at %3</source>
        <translation>ランク %2 の %1（%3）</translation>
    </message>
    <message>
        <source>Receiver call:</source>
        <translation>受信側の呼び出し:</translation>
    </message>
    <message>
        <source>Transfer:</source>
        <translation>転送:</translation>
    </message>
    <message>
        <source>Tag:</source>
        <translation>タグ:</translation>
    </message>
    <message>
        <source>Receiver&apos;s wait:</source>
        <translation>受信側の待ち:</translation>
    </message>
    <message>
        <source>Zero Wait (Z) removes the receiver&apos;s wait on this message.</source>
        <translation>待ちをゼロ（Z）で、このメッセージによる受信側の待ちを取り除きます。</translation>
    </message>
    <message>
        <source>Network model:</source>
        <translation>ネットワークモデル:</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::MainWindow</name>
    <message>
        <source>&amp;Open Trace…</source>
        <translation>トレースを開く(&amp;O)…</translation>
    </message>
    <message>
        <source>Open an ALOG or OTF2 trace</source>
        <translation>ALOG または OTF2 のトレースを開きます</translation>
    </message>
    <message>
        <source>Open &amp;Session…</source>
        <translation>セッションを開く(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Save Session</source>
        <translation>セッションを保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save Session &amp;As…</source>
        <translation>名前を付けてセッションを保存(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Export Image…</source>
        <translation>画像を書き出す(&amp;E)…</translation>
    </message>
    <message>
        <source>Ctrl+E</source>
        <translation>Ctrl+E</translation>
    </message>
    <message>
        <source>Export &amp;Predicted Trace…</source>
        <translation>予測トレースを書き出す(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>終了(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>元に戻す(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>やり直す(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Measured</source>
        <translation>実測(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Predicted</source>
        <translation>予測(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Overlay</source>
        <translation>重ね表示(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Lanes</source>
        <translation>レーン表示(&amp;L)</translation>
    </message>
    <message>
        <source>The trace as measured</source>
        <translation>実測されたトレース</translation>
    </message>
    <message>
        <source>The prediction only</source>
        <translation>予測のみ</translation>
    </message>
    <message>
        <source>Predicted boxes over the measured ones</source>
        <translation>実測の上に予測を重ねて表示します</translation>
    </message>
    <message>
        <source>Each rank split into a measured and a predicted lane</source>
        <translation>各ランクを実測と予測の 2 レーンに分けて表示します</translation>
    </message>
    <message>
        <source>&amp;Fit</source>
        <translation>全体を表示(&amp;F)</translation>
    </message>
    <message>
        <source>Show the whole trace</source>
        <translation>トレース全体を表示します</translation>
    </message>
    <message>
        <source>Zero &amp;Wait</source>
        <translation>待ち時間をゼロに(&amp;W)</translation>
    </message>
    <message>
        <source>The selected call&apos;s waiting time becomes zero</source>
        <translation>選択した呼び出しの待ち時間をゼロにします</translation>
    </message>
    <message>
        <source>Zero &amp;Event</source>
        <translation>イベントをゼロに(&amp;E)</translation>
    </message>
    <message>
        <source>The selected call takes no time</source>
        <translation>選択した呼び出しの所要時間をゼロにします</translation>
    </message>
    <message>
        <source>&amp;Balance Computation</source>
        <translation>計算量を均等化(&amp;B)</translation>
    </message>
    <message>
        <source>Every rank&apos;s computation in the selected parallel step becomes the mean</source>
        <translation>選択した並列ステップにおける各ランクの計算時間を平均にします</translation>
    </message>
    <message>
        <source>Balance Message &amp;Volume</source>
        <translation>通信量を均等化(&amp;V)</translation>
    </message>
    <message>
        <source>Every message of the selected parallel step gets the mean size</source>
        <translation>選択した並列ステップの各メッセージの大きさを平均にします</translation>
    </message>
    <message>
        <source>Zero &amp;Computation Before</source>
        <translation>直前の計算をゼロに(&amp;C)</translation>
    </message>
    <message>
        <source>The computation before the selected call takes no time</source>
        <translation>選択した呼び出しの直前の計算時間をゼロにします</translation>
    </message>
    <message>
        <source>Measured Local Costs</source>
        <translation>実測のローカルコスト</translation>
    </message>
    <message>
        <source>Model Local Costs</source>
        <translation>モデルのローカルコスト</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>ファイル(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近使ったファイル(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>編集(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>表示(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Prediction</source>
        <translation>予測(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Cost Mode</source>
        <translation>コストモード(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>ヘルプ(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About PerWiz</source>
        <translation>PerWiz について(&amp;A)</translation>
    </message>
    <message>
        <source>About PerWiz</source>
        <translation>PerWiz について</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;PerWiz&lt;/b&gt; %1&lt;/p&gt;&lt;p&gt;What-if performance prediction for MPI traces: how much faster would the program be if this wait, this event or this parallel step were fixed?&lt;/p&gt;&lt;p&gt;After the PerWiz method of Ino et al. (LogGPS replay of the measured execution).&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;PerWiz&lt;/b&gt; %1&lt;/p&gt;&lt;p&gt;MPI トレースの what-if 性能予測: この待ち時間、このイベント、この並列ステップを改善したら、プログラムはどれだけ速くなるか。&lt;/p&gt;&lt;p&gt;伊野らの PerWiz の手法 (実測された実行の LogGPS による再現) に基づいています。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>キャンセル</translation>
    </message>
    <message>
        <source>Prediction failed</source>
        <translation>予測に失敗しました</translation>
    </message>
    <message>
        <source>Loading %1…</source>
        <translation>%1 を読み込んでいます…</translation>
    </message>
    <message>
        <source>Loading cancelled</source>
        <translation>読み込みを取り消しました</translation>
    </message>
    <message>
        <source>Cannot open trace</source>
        <translation>トレースを開けません</translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>警告 %n 件</numerusform>
        </translation>
    </message>
    <message>
        <source>Show the reader&apos;s warnings</source>
        <translation>読み込み時の警告を表示します</translation>
    </message>
    <message>
        <source>Loaded %1: %2 ranks, %3 events</source>
        <translation>%1 を読み込みました: %2 ランク、%3 イベント</translation>
    </message>
    <message>
        <source>Predicting…</source>
        <translation>予測しています…</translation>
    </message>
    <message>
        <source>No trace loaded</source>
        <translation>トレースが読み込まれていません</translation>
    </message>
    <message>
        <source>Select an MPI call first</source>
        <translation>先に MPI 呼び出しを選択してください</translation>
    </message>
    <message>
        <source>Select a parallel step first</source>
        <translation>先に並列ステップを選択してください</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>トレースを開く</translation>
    </message>
    <message>
        <source>Traces (*.alog *.log *.otf *.otf2);;PerWiz sessions (*.perwiz);;All files (*)</source>
        <translation>トレース (*.alog *.log *.otf *.otf2);;PerWiz セッション (*.perwiz);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Open Session</source>
        <translation>セッションを開く</translation>
    </message>
    <message>
        <source>PerWiz sessions (*.perwiz);;All files (*)</source>
        <translation>PerWiz セッション (*.perwiz);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Cannot open session</source>
        <translation>セッションを開けません</translation>
    </message>
    <message>
        <source>Cannot save session</source>
        <translation>セッションを保存できません</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>%1 を保存しました</translation>
    </message>
    <message>
        <source>Save Session</source>
        <translation>セッションを保存</translation>
    </message>
    <message>
        <source>PerWiz sessions (*.perwiz)</source>
        <translation>PerWiz セッション (*.perwiz)</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 は既に存在します。置き換えますか?</translation>
    </message>
    <message>
        <source>Export Image</source>
        <translation>画像を書き出す</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 画像 (*.png)</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG 画像 (*.svg)</translation>
    </message>
    <message>
        <source>PDF document (*.pdf)</source>
        <translation>PDF 文書 (*.pdf)</translation>
    </message>
    <message>
        <source>Cannot export image</source>
        <translation>画像を書き出せません</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>%1 を書き出しました</translation>
    </message>
    <message>
        <source>Export Predicted Trace</source>
        <translation>予測トレースを書き出す</translation>
    </message>
    <message>
        <source>%1 already exists. PerWiz never overwrites a trace; choose another name.</source>
        <translation>%1 は既に存在します。PerWiz はトレースを上書きしません。別の名前を選んでください。</translation>
    </message>
    <message>
        <source>Writing the predicted trace…</source>
        <translation>予測トレースを書き出しています…</translation>
    </message>
    <message>
        <source>Cannot export the predicted trace</source>
        <translation>予測トレースを書き出せません</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 を書き出しました</translation>
    </message>
    <message>
        <source>Clear Recent Files</source>
        <translation>履歴を消去</translation>
    </message>
    <message>
        <source>PerWiz</source>
        <translation>PerWiz</translation>
    </message>
    <message>
        <source>Run &amp;Advisor</source>
        <translation>アドバイザを実行(&amp;A)</translation>
    </message>
    <message>
        <source>Ctrl+R</source>
        <translation>Ctrl+R</translation>
    </message>
    <message>
        <source>Rank what to fix first: domino paths, waits, steps and bounds</source>
        <translation>最初に直すべき箇所を順位付けします: ドミノパス、待ち時間、ステップ、下限</translation>
    </message>
    <message numerus="yes">
        <source>Added %n hypothesis(es)</source>
        <translation>
            <numerusform>仮説を %n 件追加しました</numerusform>
        </translation>
    </message>
    <message>
        <source>waiting for the prediction</source>
        <translation>予測を待っています</translation>
    </message>
    <message>
        <source>Network &amp;Model…</source>
        <translation>ネットワークモデル(&amp;M)…</translation>
    </message>
    <message>
        <source>Ctrl+M</source>
        <translation>Ctrl+M</translation>
    </message>
    <message>
        <source>LogGPS, LogGP or LogGPO parameters, presets, files and the cost mode</source>
        <translation>LogGPS・LogGP・LogGPO のパラメータ、プリセット、ファイル、コストモード</translation>
    </message>
    <message>
        <source>Parallel &amp;Region…</source>
        <translation>並列領域(&amp;R)…</translation>
    </message>
    <message>
        <source>Choose the state or region whose executions are the parallel steps</source>
        <translation>実行の 1 回 1 回が並列ステップとなる状態または領域を選びます</translation>
    </message>
    <message>
        <source>Network Model &amp;Presets</source>
        <translation>ネットワークモデルのプリセット(&amp;P)</translation>
    </message>
    <message>
        <source>Network Model</source>
        <translation>ネットワークモデル</translation>
    </message>
    <message>
        <source>Parallel Region</source>
        <translation>並列領域</translation>
    </message>
    <message>
        <source>Compensate Measurement &amp;Overhead…</source>
        <translation>計測オーバーヘッドの補正(&amp;O)…</translation>
    </message>
    <message>
        <source>Remove the tracer&apos;s per-event overhead from every rank and propagate the delays along messages</source>
        <translation>トレーサのイベントごとのオーバーヘッドを全ランクから除き、遅延をメッセージに沿って伝播させます</translation>
    </message>
    <message>
        <source>overhead</source>
        <translation>オーバーヘッド</translation>
    </message>
    <message>
        <source>Compensate Measurement Overhead</source>
        <translation>計測オーバーヘッドの補正</translation>
    </message>
    <message>
        <source>Every traced event cost the program some time for its measurement. Compensation removes it from every rank and propagates the delays along messages and collectives (Malony et al.), giving the uninstrumented run.</source>
        <translation>トレースした各イベントは計測のためにプログラムの時間を消費しています。補正はそれを全ランクから取り除き、遅延をメッセージと集団通信に沿って伝播させて (Malony ら)、計測なしの実行を求めます。</translation>
    </message>
    <message>
        <source>Overhead recorded by the tracer (%1 per record)</source>
        <translation>トレーサが記録したオーバーヘッド (1 レコードあたり %1)</translation>
    </message>
    <message>
        <source>Overhead recorded by the tracer (this trace has none)</source>
        <translation>トレーサが記録したオーバーヘッド (このトレースにはありません)</translation>
    </message>
    <message>
        <source>Overhead per event:</source>
        <translation>1 イベントあたりのオーバーヘッド:</translation>
    </message>
    <message>
        <source> ns</source>
        <translation> ns</translation>
    </message>
    <message numerus="yes">
        <source>Predicting… (%n change(s) pending)</source>
        <translation>
            <numerusform>予測中… (%n 件の変更が保留中)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1…</source>
        <translation>%1…</translation>
    </message>
    <message numerus="yes">
        <source>%1… (%n change(s) pending)</source>
        <translation>
            <numerusform>%1… (%n 件の変更が保留中)</numerusform>
        </translation>
    </message>
    <message>
        <source>Prediction cancelled: the timeline shows the last prediction (F5 predicts again)</source>
        <translation>予測を取り消しました: タイムラインは直前の予測を表示しています (F5 で再予測)</translation>
    </message>
    <message>
        <source>Predict A&amp;gain</source>
        <translation>再予測(&amp;G)</translation>
    </message>
    <message>
        <source>Predict the current scenario again (after a cancelled prediction)</source>
        <translation>現在のシナリオを再び予測します (取り消した予測の後に)</translation>
    </message>
    <message>
        <source>Stop loading or predicting</source>
        <translation>読み込みまたは予測を中止します</translation>
    </message>
    <message>
        <source>Wait for the prediction of the current scenario, then export it</source>
        <translation>現在のシナリオの予測が終わるのを待ってから書き出してください</translation>
    </message>
    <message>
        <source>Select the call itself to zero it</source>
        <translation>ゼロにするには呼び出し自体を選択してください</translation>
    </message>
    <message>
        <source>This message has no matched receive</source>
        <translation>このメッセージには対応する受信がありません</translation>
    </message>
    <message>
        <source>Unsaved Hypotheses</source>
        <translation>保存されていない仮説</translation>
    </message>
    <message>
        <source>The hypotheses of this session have changed since it was last saved. Save them first?</source>
        <translation>このセッションの仮説は最後の保存以降に変更されています。先に保存しますか？</translation>
    </message>
    <message>
        <source>%1[*] — PerWiz</source>
        <translation>%1[*] — PerWiz</translation>
    </message>
    <message>
        <source>%1[*] (%2) — PerWiz</source>
        <translation>%1[*] (%2) — PerWiz</translation>
    </message>
    <message>
        <source>&amp;Keyboard and Mouse</source>
        <translation>キーボードとマウス(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard and Mouse</source>
        <translation>キーボードとマウス</translation>
    </message>
    <message>
        <source>&lt;table cellspacing=&apos;4&apos;&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Click&lt;/b&gt;&lt;/td&gt;&lt;td&gt;select a message arrow, an MPI call or a step band&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Z&lt;/b&gt;&lt;/td&gt;&lt;td&gt;zero the wait (of a call, or of the receive of a message)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;E&lt;/b&gt;&lt;/td&gt;&lt;td&gt;zero the selected call&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;B / V&lt;/b&gt;&lt;/td&gt;&lt;td&gt;balance the step&apos;s computation / message volume&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;P&lt;/b&gt;&lt;/td&gt;&lt;td&gt;go to the partner call (repeat to walk a collective)&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;← / →&lt;/b&gt;&lt;/td&gt;&lt;td&gt;previous / next event on the rank&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;↑ / ↓&lt;/b&gt;&lt;/td&gt;&lt;td&gt;the event at the same time on the rank above / below&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Esc&lt;/b&gt;&lt;/td&gt;&lt;td&gt;clear the selection&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Wheel, W / S&lt;/b&gt;&lt;/td&gt;&lt;td&gt;zoom in / out&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Drag, A / D&lt;/b&gt;&lt;/td&gt;&lt;td&gt;pan; a right drag zooms to the range&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;F&lt;/b&gt;&lt;/td&gt;&lt;td&gt;fit the whole trace&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+1 … 4&lt;/b&gt;&lt;/td&gt;&lt;td&gt;measured, predicted, overlay, lanes&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Z / Ctrl+Shift+Z&lt;/b&gt;&lt;/td&gt;&lt;td&gt;undo / redo a hypothesis&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;F5&lt;/b&gt;&lt;/td&gt;&lt;td&gt;predict again&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</source>
        <translation>&lt;table cellspacing=&apos;4&apos;&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;クリック&lt;/b&gt;&lt;/td&gt;&lt;td&gt;メッセージの矢印、MPI 呼び出し、またはステップ帯を選択&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Z&lt;/b&gt;&lt;/td&gt;&lt;td&gt;待ちをゼロに（呼び出しの待ち、またはメッセージの受信の待ち）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;E&lt;/b&gt;&lt;/td&gt;&lt;td&gt;選択した呼び出しをゼロに&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;B / V&lt;/b&gt;&lt;/td&gt;&lt;td&gt;ステップの計算 / 通信量を均衡化&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;P&lt;/b&gt;&lt;/td&gt;&lt;td&gt;相手の呼び出しへ移動（繰り返すと集団通信をたどる）&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;← / →&lt;/b&gt;&lt;/td&gt;&lt;td&gt;ランク上の前 / 次のイベント&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;↑ / ↓&lt;/b&gt;&lt;/td&gt;&lt;td&gt;上 / 下のランクで同時刻のイベント&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Esc&lt;/b&gt;&lt;/td&gt;&lt;td&gt;選択を解除&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;ホイール、W / S&lt;/b&gt;&lt;/td&gt;&lt;td&gt;拡大 / 縮小&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;ドラッグ、A / D&lt;/b&gt;&lt;/td&gt;&lt;td&gt;移動。右ドラッグでその範囲に拡大&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;F&lt;/b&gt;&lt;/td&gt;&lt;td&gt;トレース全体を表示&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+1 … 4&lt;/b&gt;&lt;/td&gt;&lt;td&gt;実測、予測、重ね表示、レーン&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;Ctrl+Z / Ctrl+Shift+Z&lt;/b&gt;&lt;/td&gt;&lt;td&gt;仮説を元に戻す / やり直す&lt;/td&gt;&lt;/tr&gt;&lt;tr&gt;&lt;td&gt;&lt;b&gt;F5&lt;/b&gt;&lt;/td&gt;&lt;td&gt;再予測&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</translation>
    </message>
    <message>
        <source>ALOG trace (*.alog)</source>
        <translation>ALOG トレース (*.alog)</translation>
    </message>
    <message>
        <source>OTF trace (*.otf)</source>
        <translation>OTF トレース (*.otf)</translation>
    </message>
    <message>
        <source>OTF2 archive (*.otf2)</source>
        <translation>OTF2 アーカイブ (*.otf2)</translation>
    </message>
    <message numerus="yes">
        <source>No MPI rank: %n thread(s) shown as measured, no prediction offered</source>
        <translation>
            <numerusform>MPI ランクなし: %n 個のスレッドを実測のまま表示、予測はありません</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Loaded %1: %n thread(s) and no MPI rank (a program without MPI): PerWiz predicts MPI ranks, so the threads are shown as measured</source>
        <translation>
            <numerusform>%1 を読み込みました: %n 個のスレッドがあり MPI ランクはありません (MPI を使わないプログラム)。PerWiz は MPI ランクを予測するため、スレッドは実測のまま表示します</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Loaded %1: %2 ranks, %3 events; %n thread(s) under their ranks, shown as measured (the prediction replays the ranks)</source>
        <translation>
            <numerusform>%1 を読み込みました: %2 ランク、%3 イベント。%n 個のスレッドをランクの下に実測のまま表示 (予測はランクを再生します)</numerusform>
        </translation>
    </message>
    <message>
        <source>Model: %1</source>
        <translation>モデル: %1</translation>
    </message>
    <message>
        <source>The network model and cost mode of the prediction (Ctrl+M to change)</source>
        <translation>予測のネットワークモデルとコストモード (Ctrl+M で変更)</translation>
    </message>
    <message>
        <source>T unchanged: what the change removes is not on the critical path (another chain of calls and waits as long still ends the run)</source>
        <translation>T は変わりません: 変更で除いたものはクリティカルパス上にありません (同じ長さの別の呼び出しと待ちの連鎖が実行の終わりを決めています)</translation>
    </message>
    <message>
        <source>%1; drawing the exact prediction…</source>
        <translation>%1; 正確な予測を描画中…</translation>
    </message>
    <message>
        <source>%1 (%2 from the change to the final frame)</source>
        <translation>%1 (変更から最終フレームまで %2)</translation>
    </message>
    <message>
        <source>Full replay in %1</source>
        <translation>全体の再生 %1</translation>
    </message>
    <message>
        <source>Updated %1 events and shifted %2 in %3</source>
        <translation>%1 イベントを更新し %2 をシフト (%3)</translation>
    </message>
    <message>
        <source>Updated %1 events in %2</source>
        <translation>%1 イベントを更新 (%2)</translation>
    </message>
    <message>
        <source>&amp;Compare With…</source>
        <translation>比較(&amp;C)…</translation>
    </message>
    <message>
        <source>Open a second run of the program (e.g. after the fix) and compare it with this one</source>
        <translation>プログラムの 2 回目の実行 (修正後など) を開き、この実行と比較します</translation>
    </message>
    <message>
        <source>Compare With</source>
        <translation>比較</translation>
    </message>
    <message>
        <source>Traces (*.alog *.log *.otf *.otf2);;All files (*)</source>
        <translation>トレース (*.alog *.log *.otf *.otf2);;すべてのファイル (*)</translation>
    </message>
    <message numerus="yes">
        <source>A: %1 — measured %2; predicted under %n hypothesis(es) %3</source>
        <translation>
            <numerusform>A: %1 — 測定 %2、仮説 %n 個での予測 %3</numerusform>
        </translation>
    </message>
    <message>
        <source>A: %1 — measured %2</source>
        <translation>A: %1 — 測定 %2</translation>
    </message>
    <message>
        <source>B: %1 — re-measured %2</source>
        <translation>B: %1 — 再測定 %2</translation>
    </message>
    <message>
        <source>Compared with %1 (B): %2 of the events paired</source>
        <translation>%1 (B) と比較: %2 イベントが対応</translation>
    </message>
    <message>
        <source>T: A %1, A′ %2, B %3; the prediction is off by %4</source>
        <translation>T: A %1、A′ %2、B %3。予測の誤差 %4</translation>
    </message>
    <message>
        <source>T: A %1, B %2</source>
        <translation>T: A %1、B %2</translation>
    </message>
    <message>
        <source> — shifted by %1 to line up with A</source>
        <translation> — A に揃えるため %1 ずらし</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::NetworkModelDialog</name>
    <message>
        <source>Network Model</source>
        <translation>ネットワークモデル</translation>
    </message>
    <message>
        <source>(custom)</source>
        <translation>(カスタム)</translation>
    </message>
    <message>
        <source>Measured local costs (only waits are re-derived)</source>
        <translation>実測のローカルコスト (待ち時間のみ再計算)</translation>
    </message>
    <message>
        <source>Model local costs (retarget to this network)</source>
        <translation>モデルのローカルコスト (このネットワークに移し替え)</translation>
    </message>
    <message>
        <source>Preset:</source>
        <translation>プリセット:</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>モデル:</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名前:</translation>
    </message>
    <message>
        <source>Cost mode:</source>
        <translation>コストモード:</translation>
    </message>
    <message>
        <source>Latency L</source>
        <translation>遅延 L</translation>
    </message>
    <message>
        <source>µs</source>
        <translation>µs</translation>
    </message>
    <message>
        <source>Overhead o</source>
        <translation>オーバヘッド o</translation>
    </message>
    <message>
        <source>Gap g</source>
        <translation>ギャップ g</translation>
    </message>
    <message>
        <source>Gap per byte G</source>
        <translation>バイトあたりギャップ G</translation>
    </message>
    <message>
        <source>µs/B</source>
        <translation>µs/B</translation>
    </message>
    <message>
        <source>Processors P (0 = the trace&apos;s)</source>
        <translation>プロセッサ数 P (0 = トレースのランク数)</translation>
    </message>
    <message>
        <source>Synchronous above S</source>
        <translation>同期モードになる大きさ S (これを超えると同期)</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>バイト</translation>
    </message>
    <message>
        <source>Packet size s (0 = one packet)</source>
        <translation>パケットサイズ s (0 = 1 パケット)</translation>
    </message>
    <message>
        <source>Send overhead o_s(k)</source>
        <translation>送信オーバヘッド o_s(k)</translation>
    </message>
    <message>
        <source>Receive overhead o_r(k)</source>
        <translation>受信オーバヘッド o_r(k)</translation>
    </message>
    <message>
        <source>Synchronous send (k &gt; S)</source>
        <translation>同期送信 (k &gt; S)</translation>
    </message>
    <message>
        <source>Synchronous receive (k &gt; S)</source>
        <translation>同期受信 (k &gt; S)</translation>
    </message>
    <message>
        <source>: a</source>
        <translation>: a</translation>
    </message>
    <message>
        <source>: b</source>
        <translation>: b</translation>
    </message>
    <message>
        <source>Control message overhead O&apos;</source>
        <translation>制御メッセージのオーバヘッド O&apos;</translation>
    </message>
    <message>
        <source>Transfer start O_i(k): a</source>
        <translation>転送開始 O_i(k): a</translation>
    </message>
    <message>
        <source>Transfer start O_i(k): b</source>
        <translation>転送開始 O_i(k): b</translation>
    </message>
    <message>
        <source>Memory copy O_c(k): a</source>
        <translation>メモリコピー O_c(k): a</translation>
    </message>
    <message>
        <source>Memory copy O_c(k): b</source>
        <translation>メモリコピー O_c(k): b</translation>
    </message>
    <message>
        <source>Rendezvous above S</source>
        <translation>ランデブーになる大きさ S (これを超えるとランデブー)</translation>
    </message>
    <message>
        <source>Dependent (progress only inside MPI calls)</source>
        <translation>依存型 (MPI 呼び出しの中でのみ進行)</translation>
    </message>
    <message>
        <source>Independent (a progress engine)</source>
        <translation>独立型 (進行エンジンあり)</translation>
    </message>
    <message>
        <source>Communication progress:</source>
        <translation>通信の進行:</translation>
    </message>
    <message>
        <source>Load…</source>
        <translation>読み込み…</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <source>Load Network Model</source>
        <translation>ネットワークモデルを読み込む</translation>
    </message>
    <message>
        <source>Model files (*.json);;All files (*)</source>
        <translation>モデルファイル (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Save Network Model</source>
        <translation>ネットワークモデルを保存</translation>
    </message>
    <message>
        <source>Model files (*.json)</source>
        <translation>モデルファイル (*.json)</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>own line for rendezvous sizes</source>
        <translation>ランデブーのサイズには別の直線</translation>
    </message>
    <message>
        <source>Rendezvous O_i(k):</source>
        <translation>ランデブー O_i(k):</translation>
    </message>
    <message>
        <source>Rendezvous transfer start O_i(k): a</source>
        <translation>ランデブー転送開始 O_i(k): a</translation>
    </message>
    <message>
        <source>Rendezvous transfer start O_i(k): b</source>
        <translation>ランデブー転送開始 O_i(k): b</translation>
    </message>
    <message>
        <source>Eager data moves</source>
        <translation>イーガーデータの転送</translation>
    </message>
    <message>
        <source>from the send (at-send)</source>
        <translation>送信から (at-send)</translation>
    </message>
    <message>
        <source>once the receive is posted (at-receive)</source>
        <translation>受信が出されてから (at-receive)</translation>
    </message>
    <message>
        <source>A host&apos;s two directions</source>
        <translation>ホストの送受 2 方向</translation>
    </message>
    <message>
        <source>at once (full duplex)</source>
        <translation>同時 (全二重)</translation>
    </message>
    <message>
        <source>share one link (half duplex)</source>
        <translation>1 本のリンクを共有 (半二重)</translation>
    </message>
    <message>
        <source>Collective algorithms</source>
        <translation>集団通信アルゴリズム</translation>
    </message>
    <message>
        <source>binomial trees</source>
        <translation>二項木</translation>
    </message>
    <message>
        <source>SimGrid SMPI&apos;s defaults</source>
        <translation>SimGrid SMPI の既定</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::OverheadDock</name>
    <message>
        <source>Communication Overhead</source>
        <translation>通信オーバーヘッド</translation>
    </message>
    <message>
        <source>Quantile q_max:</source>
        <translation>分位点 q_max:</translation>
    </message>
    <message>
        <source>A call longer than the q_max quantile of its class&apos;s fitted error counts as overhead</source>
        <translation>クラスの当てはめた誤差分布の q_max 分位点より長い呼び出しをオーバーヘッドとみなします</translation>
    </message>
    <message>
        <source>Profile…</source>
        <translation>プロファイル…</translation>
    </message>
    <message>
        <source>Use a measured profile T_f(p, b) instead of fitting this trace</source>
        <translation>このトレースへの当てはめの代わりに計測済みプロファイル T_f(p, b) を使います</translation>
    </message>
    <message>
        <source>fitted per trace</source>
        <translation>トレースごとに当てはめ</translation>
    </message>
    <message>
        <source>Fit this trace instead of using the profile</source>
        <translation>プロファイルを使わずにこのトレースに当てはめます</translation>
    </message>
    <message>
        <source>Analyse</source>
        <translation>解析</translation>
    </message>
    <message>
        <source>Show on timeline</source>
        <translation>タイムラインに表示</translation>
    </message>
    <message>
        <source>Mark each call&apos;s overhead (the time beyond its class&apos;s t_max) in red under the measured rows</source>
        <translation>各呼び出しのオーバーヘッド (クラスの t_max を超えた時間) を計測行の下に赤で示します</translation>
    </message>
    <message>
        <source>Calls</source>
        <translation>呼び出し数</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>時間</translation>
    </message>
    <message>
        <source>Overhead</source>
        <translation>オーバーヘッド</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>割合</translation>
    </message>
    <message>
        <source>Call site</source>
        <translation>呼び出し箇所</translation>
    </message>
    <message>
        <source>Function</source>
        <translation>関数</translation>
    </message>
    <message>
        <source>p</source>
        <translation>p</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>バイト</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>t_max</source>
        <translation>t_max</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>モデル</translation>
    </message>
    <message>
        <source>χ² / limit</source>
        <translation>χ² / 上限</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>当てはめ</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>Call Sites</source>
        <translation>呼び出し箇所</translation>
    </message>
    <message>
        <source>Classes</source>
        <translation>クラス</translation>
    </message>
    <message>
        <source>Functions</source>
        <translation>関数</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク</translation>
    </message>
    <message>
        <source>Overhead Profile</source>
        <translation>オーバーヘッドプロファイル</translation>
    </message>
    <message>
        <source>Overhead profiles (*.json);;All files (*)</source>
        <translation>オーバーヘッドプロファイル (*.json);;すべてのファイル (*)</translation>
    </message>
    <message>
        <source>Select a class</source>
        <translation>クラスを選択してください</translation>
    </message>
    <message>
        <source>Not analysed yet: press Analyse.</source>
        <translation>未解析です: 「解析」を押してください。</translation>
    </message>
    <message>
        <source>No trace</source>
        <translation>トレースなし</translation>
    </message>
    <message>
        <source>profile %1</source>
        <translation>プロファイル %1</translation>
    </message>
    <message numerus="yes">
        <source>Analysing %n communication call(s)…</source>
        <translation>
            <numerusform>%n 個の通信呼び出しを解析中…</numerusform>
        </translation>
    </message>
    <message>
        <source>Overhead analysis failed: %1</source>
        <translation>オーバーヘッド解析に失敗しました: %1</translation>
    </message>
    <message>
        <source>%1 of %2 in %3 communication calls is overhead (%4), q_max = %5%6.</source>
        <translation>%3 個の通信呼び出しの %2 のうち %1 がオーバーヘッドです (%4)、q_max = %5%6。</translation>
    </message>
    <message>
        <source>, t_max from the profile where it has the class</source>
        <translation>、クラスがあれば t_max はプロファイルから</translation>
    </message>
    <message>
        <source>profile (outside its grid)</source>
        <translation>プロファイル (格子外)</translation>
    </message>
    <message>
        <source>profile</source>
        <translation>プロファイル</translation>
    </message>
    <message>
        <source>t_max %1 from the profile</source>
        <translation>プロファイルによる t_max %1</translation>
    </message>
    <message>
        <source>calls</source>
        <translation>呼び出し</translation>
    </message>
    <message>
        <source>%1 fit%2</source>
        <translation>%1 当てはめ%2</translation>
    </message>
    <message>
        <source> (chosen)</source>
        <translation> (採用)</translation>
    </message>
    <message>
        <source>%1, %2 B on %3 processes (%4)</source>
        <translation>%1、%2 B、%3 プロセス (%4)</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::RegionPickerDialog</name>
    <message>
        <source>Parallel Region</source>
        <translation>並列領域</translation>
    </message>
    <message>
        <source>Choose the user state or region whose executions are the parallel steps (each execution on every rank is one step).</source>
        <translation>実行の 1 回 1 回が並列ステップとなるユーザ状態または領域を選んでください (全ランクでの 1 回の実行が 1 ステップです)。</translation>
    </message>
    <message>
        <source>Filter names</source>
        <translation>名前で絞り込み</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名前</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>ステップ</translation>
    </message>
    <message>
        <source>Occurrences</source>
        <translation>出現回数</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>ランク数</translation>
    </message>
    <message>
        <source>The trace has no user states or regions.</source>
        <translation>このトレースにはユーザ状態も領域もありません。</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::ScenarioHistory</name>
    <message>
        <source>Start</source>
        <translation>開始時</translation>
    </message>
</context>
<context>
    <name>perwiz::gui::WarningsDock</name>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Replay notes:</source>
        <translation>再シミュレーションの注記:</translation>
    </message>
    <message>
        <source>No warnings.</source>
        <translation>警告はありません。</translation>
    </message>
</context>
</TS>
